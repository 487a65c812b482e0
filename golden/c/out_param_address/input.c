#include <math.h>

/* Mean and variance of x, through out-parameters. */
static void stats(const double *x, int n, double *mean, double *var)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i];
    *mean = s / n;
    double q = 0.0;
    for (int i = 0; i < n; i++)
        q += (x[i] - *mean) * (x[i] - *mean);
    *var = q / n;
}

/* The index of the largest element, and the running scale updated in place. */
static void largest(const double *x, int n, int *at, double *scale)
{
    *at = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[*at])
            *at = i;
    *scale *= x[*at];
}

/* A standardized score of the largest element: the addresses of locals passed as outputs. */
double zscore(const double *x, int n, double w)
{
    double m, v;
    stats(x, n, &m, &v);
    int k;
    largest(x, n, &k, &w);
    return (x[k] - m) / sqrt(v) + w;
}
