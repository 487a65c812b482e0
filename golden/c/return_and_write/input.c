/* Returns a double and also writes an output array. */
#include <math.h>

double normalize(double *y, const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * x[i];
    }
    double norm = sqrt(s);
    for (int i = 0; i < n; i++) {
        y[i] = x[i] / norm;
    }
    return norm;
}
