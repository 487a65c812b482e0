#include <math.h>

/* The dot product of one row with x, m numbers. */
static double dot(const double *a, const double *x, int m)
{
    double s = 0.0;
    for (int j = 0; j < m; j++)
        s += a[j] * x[j];
    return s;
}

/* One layer, Y[i][0] = tanh(A[i] . x), and the sum of the squares of the outputs. A and Y are
   arrays of rows (double **), as numerical C often allocates matrices; a row goes to the helper. */
double layer(const double *const *A, const double *x, double **Y, int n, int m)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        const double *row = A[i];
        Y[i][0] = tanh(dot(row, x, m));
        s += Y[i][0] * Y[i][0] + 0.1 * A[i][m - 1];
    }
    return s;
}
