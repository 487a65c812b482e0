/* math.h: fabs, fmin, fmax, hypot. */
#include <math.h>

double robust_distance(const double *x, const double *y, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double d = fabs(x[i] - y[i]);
        s += fmin(d, 0.5) + fmax(x[i], y[i]) + hypot(x[i], y[i]);
    }
    return s;
}
