#include <math.h>

/* x[i] and y[i] are overwritten; the reverse sweep needs them only through p, so p is the
   one value taped per iteration (not sin(p), cos(p) and p, nor x[i] and y[i]). */
double f(double *x, double *y, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double p = x[i] + y[i];
        s += sin(p) * cos(p);
        x[i] = 0.5 * y[i];
        y[i] = 2.0 * p;
    }
    return s;
}
