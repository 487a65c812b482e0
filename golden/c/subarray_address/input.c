/* A sub-array passed to a static callee as &x[i * 3]. */
#include <math.h>

static double norm3(const double *v)
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

double total_length(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += norm3(&x[i * 3]);
    }
    return s;
}
