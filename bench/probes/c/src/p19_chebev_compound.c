/* Chebyshev fit with NR chebev() (Clenshaw recurrence, embedded assignment)
 * and a Horner-evaluated polynomial correction using compound assignments. */
#include <math.h>

double chebev(double a, double b, double c[], int m, double x)
{
    double d = 0.0, dd = 0.0, sv, y, y2;
    int j;

    y2 = 2.0 * (y = (2.0 * x - a - b) / (b - a));
    for (j = m - 1; j >= 1; j--) {
        sv = d;
        d = y2 * d - dd + c[j];
        dd = sv;
    }
    return y * d - dd + 0.5 * c[0];
}

double cheb_fit(double a, double b, double c[], int m, const double *xs,
                const double *fs, int npts, const double *corr, int ncorr)
{
    double sse = 0.0;
    for (int i = 0; i < npts; i++) {
        double p = corr[ncorr - 1];
        for (int k = ncorr - 2; k >= 0; k--) {
            p *= xs[i];
            p += corr[k];
        }
        double r = chebev(a, b, c, m, xs[i]);
        r -= fs[i];
        r += p;
        r /= 1.0 + 0.1 * i;
        sse += r * r;
    }
    sse *= 0.5;
    return sse;
}
