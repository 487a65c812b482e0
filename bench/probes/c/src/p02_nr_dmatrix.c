/* Gaussian-process style quadratic form with a squared-exponential kernel
 * matrix allocated by the Numerical Recipes dmatrix() (offset row pointers,
 * one contiguous block). x[1..n], y[1..n] are 1-based. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define NR_END 1
#define FREE_ARG char*

static void nrerror(const char error_text[])
{
    fprintf(stderr, "%s\n", error_text);
    exit(1);
}

double **dmatrix(long nrl, long nrh, long ncl, long nch)
/* allocate a double matrix with subscript range m[nrl..nrh][ncl..nch] */
{
    long i, nrow = nrh - nrl + 1, ncol = nch - ncl + 1;
    double **m;

    m = (double **)malloc((size_t)((nrow + NR_END) * sizeof(double *)));
    if (!m) nrerror("allocation failure 1 in matrix()");
    m += NR_END;
    m -= nrl;

    m[nrl] = (double *)malloc((size_t)((nrow * ncol + NR_END) * sizeof(double)));
    if (!m[nrl]) nrerror("allocation failure 2 in matrix()");
    m[nrl] += NR_END;
    m[nrl] -= ncl;

    for (i = nrl + 1; i <= nrh; i++) m[i] = m[i - 1] + ncol;
    return m;
}

void free_dmatrix(double **m, long nrl, long nrh, long ncl, long nch)
{
    free((FREE_ARG)(m[nrl] + ncl - NR_END));
    free((FREE_ARG)(m + nrl - NR_END));
}

double gp_quad(double x[], double y[], int n, double ell, double sf2)
{
    int i, j;
    double **K, q = 0.0;

    K = dmatrix(1, n, 1, n);
    for (i = 1; i <= n; i++)
        for (j = 1; j <= n; j++) {
            double d = x[i] - x[j];
            K[i][j] = sf2 * exp(-0.5 * d * d / (ell * ell));
        }
    for (i = 1; i <= n; i++)
        for (j = 1; j <= n; j++)
            q += y[i] * K[i][j] * y[j];
    free_dmatrix(K, 1, n, 1, n);
    return q;
}
