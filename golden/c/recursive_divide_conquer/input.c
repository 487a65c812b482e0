#include <math.h>

/* A product of sin(x[i]) + 2 over [lo, hi), split in halves (divide and conquer). */
double rprod(const double *x, int lo, int hi) {
    if (hi - lo == 1) {
        return sin(x[lo]) + 2.0;
    }
    int mid = (lo + hi) / 2;
    double left = rprod(x, lo, mid);
    double right = rprod(x, mid, hi);
    return left * right;
}
