#include <math.h>

/* The loop calls a helper, which becomes a __device__ function (level 0 keeps the call);
   the scalar setup before the loop is recomputed by every thread. */
static double softplus(double v)
{
    if (v > 20.0) {
        return v;
    }
    return log(1.0 + exp(v));
}

void activate(int n, double s, const double *x, double *y)
{
    double half = 0.5 * s;
    for (int i = 0; i < n; i++) {
        y[i] = half * softplus(x[i]) + x[i];
    }
}
