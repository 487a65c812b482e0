#include <math.h>

/* A scaled log-sum as numerical code writes it: each value split into its mantissa and binary
   exponent with frexp, the mantissa's log taken where it is well conditioned. */
double log_scaled_sum(const double *x, double a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        int e;
        double m = frexp(a * x[i], &e);
        s += log(m) + 0.6931471805599453 * e + m * m;
    }
    return s;
}
