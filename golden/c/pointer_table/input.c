#include <math.h>

static double sumsq(const double *v, int n) {
    double s = 0.0;
    for (int j = 0; j < n; j++) {
        s += v[j] * v[j];
    }
    return s;
}

/* Three channels and two outputs reached through tables of pointers, as multi-channel code does. */
double channels(const double *r, const double *g, const double *b, double *lo, double *hi, int n) {
    const double *in[3] = {r, g, b};
    double *out[2] = {lo, hi};
    double e = 0.0;
    for (int k = 0; k < 3; k++) {
        e += (k + 1) * sumsq(in[k], n);
        for (int j = 0; j < n; j++) {
            out[k % 2][j] += sin(in[k][j]) * in[(k + 1) % 3][j];
        }
    }
    return e + out[1][0] * out[0][n - 1];
}
