#include <math.h>

/* Each row of an n x m grid scaled by the softplus of its squared norm, the rows in parallel:
   iteration i owns A[i][j] and B[i][j], so the adjoint loop needs no atomics. */
void row_softplus(int n, int m, const double A[n][m], double B[n][m])
{
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++) {
            s += A[i][j] * A[i][j];
        }
        double r = log(1.0 + exp(s));
        for (int j = 0; j < m; j++) {
            B[i][j] = r * A[i][j];
        }
    }
}
