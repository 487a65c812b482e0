#include <math.h>

/* A carried scalar and an array updated in place, re-run from the loop's entry state. */
double f(double *x, int n, int steps)
{
    double s = 1.0;
#pragma s2sad checkpoint recompute
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++)
            x[i] = sin(x[i]) * s + 0.5 * x[i];
        s = s * 0.9 + x[t % n] * x[t % n];
    }
    return s;
}
