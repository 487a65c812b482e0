/* Ridge regression objective with C99 VLA parameters and a VLA residual. */
#include <math.h>

double ridge(int n, int m, const double A[n][m], const double x[m],
             const double b[n], double lambda)
{
    double r[n];
    double f = 0.0;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++)
            s += A[i][j] * x[j];
        r[i] = s - b[i];
    }
    for (int i = 0; i < n; i++)
        f += r[i] * r[i];
    double reg = 0.0;
    for (int j = 0; j < m; j++)
        reg += x[j] * x[j];
    return 0.5 * f + 0.5 * lambda * reg;
}
