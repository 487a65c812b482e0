/* Calibration fit: a sensor's response is a tabulated curve (knots xk, values
 * yk, increasing xk) read by piecewise-linear interpolation, the interval found
 * by bisection (Numerical Recipes 'locate' style) and held constant outside the
 * table. The raw readings are mapped through gain/offset; misfit to references. */
#include <math.h>

static int locate(const double *xx, int n, double x)
{
    int jl = 0, ju = n - 1, jm;
    if (x <= xx[0]) return 0;
    if (x >= xx[n - 1]) return n - 2;
    while (ju - jl > 1) {
        jm = (ju + jl) >> 1;
        if (x >= xx[jm])
            jl = jm;
        else
            ju = jm;
    }
    return jl;
}

static double interp_linear(const double *xk, const double *yk, int n, double x)
{
    if (x <= xk[0]) return yk[0];
    if (x >= xk[n - 1]) return yk[n - 1];
    const int j = locate(xk, n, x);
    const double t = (x - xk[j]) / (xk[j + 1] - xk[j]);
    return (1.0 - t) * yk[j] + t * yk[j + 1];
}

double calib_misfit(const double *xk, const double *yk, int nk, const double *raw,
                    const double *ref, int m, double gain, double offset)
{
    double sse = 0.0;
    int i = 0;
    while (i < m) {
        double xi = gain * raw[i] + offset;
        double r = interp_linear(xk, yk, nk, xi) - ref[i];
        sse += r * r;
        ++i;
    }
    return sse / m;
}
