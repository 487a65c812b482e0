/* VARIANT of p01: nrerror() and its call removed.
 * Extended Rosenbrock function, Numerical Recipes style: 1-based vectors
 * allocated with an nrutil-like dvector(), offset pointers. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define NR_END 1
#define FREE_ARG char*

double *dvector(long nl, long nh)
/* allocate a double vector with subscript range v[nl..nh] */
{
    double *v;

    v = (double *)malloc((size_t)((nh - nl + 1 + NR_END) * sizeof(double)));
    return v - nl + NR_END;
}

void free_dvector(double *v, long nl, long nh)
/* free a double vector allocated with dvector() */
{
    free((FREE_ARG)(v + nl - NR_END));
}

/* f(p[1..n]) = sum alpha (p[i+1]-p[i]^2)^2 + (1-p[i])^2 */
double rosen(double p[], int n, double alpha)
{
    int i;
    double f = 0.0, *r;

    r = dvector(1, n - 1);
    for (i = 1; i < n; i++)
        r[i] = p[i + 1] - p[i] * p[i];
    for (i = 1; i < n; i++)
        f += alpha * r[i] * r[i] + (1.0 - p[i]) * (1.0 - p[i]);
    free_dvector(r, 1, n - 1);
    return f;
}
