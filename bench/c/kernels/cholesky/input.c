#include <math.h>

/* The Cholesky factor of S = A A^T + n I, computed in place in L. */
void cholesky(int n, const double A[n][n], double L[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = (i == j) ? n : 0.0;
            for (int k = 0; k < n; k++)
                s += A[i][k] * A[j][k];
            L[i][j] = s;
        }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                L[i][j] -= L[i][k] * L[j][k];
            L[i][j] /= L[j][j];
        }
        for (int k = 0; k < i; k++)
            L[i][i] -= L[i][k] * L[i][k];
        L[i][i] = sqrt(L[i][i]);
    }
}
