/* A 2-D local array declared in a loop body and filled by a helper, in a loop
 * that can be left early (return or break): "the size of this local array
 * changes after it is made" (the 1-D version, or no early exit, is accepted). */
#include <math.h>
static void sq(double C[2][2], const double A[2][2])
{
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            C[i][j] = A[i][0] * A[0][j] + A[i][1] * A[1][j];
}
double f(int T, const double *y)
{
    double P[2][2] = {{1.0, 0.2}, {0.1, 1.0}}, ll = 0.0;
    for (int t = 0; t < T; t++) {
        double S[2][2];
        sq(S, P);
        double det = S[0][0] * S[1][1] - S[0][1] * S[1][0];
        if (det <= 0.0)
            return -INFINITY;
        ll += log(det);
        P[0][0] = 0.5 * S[0][0] + y[t];
    }
    return ll;
}
