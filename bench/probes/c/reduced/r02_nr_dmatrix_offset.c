#include <stdlib.h>
static double **dmatrix(long nrl, long nrh, long ncl, long nch)
{
    long i, nrow = nrh - nrl + 1, ncol = nch - ncl + 1;
    double **m = (double **)malloc((size_t)((nrow + 1) * sizeof(double *)));
    m += 1;
    m -= nrl;
    m[nrl] = (double *)malloc((size_t)((nrow * ncol + 1) * sizeof(double)));
    m[nrl] += 1;
    m[nrl] -= ncl;
    for (i = nrl + 1; i <= nrh; i++) m[i] = m[i - 1] + ncol;
    return m;
}
double trace_outer(const double *x, int n)   /* x[1..n] */
{
    double **K = dmatrix(1, n, 1, n), s = 0.0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) K[i][j] = x[i] * x[j];
    for (int i = 1; i <= n; i++) s += K[i][i];
    return s;
}
