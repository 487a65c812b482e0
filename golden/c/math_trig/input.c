/* math.h: sin, cos, tan, tanh, atan2. */
#include <math.h>

double trig_mix(const double *x, const double *y, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += sin(x[i]) * cos(y[i]) + tan(0.5 * x[i]);
        s += tanh(y[i]) * atan2(y[i], 1.0 + x[i] * x[i]);
    }
    return s;
}
