#include <math.h>

/* The shape of most numerical C: helpers write into a work array that the next call reuses. */
static void subtract(int d, const double *x, const double *mu, double *out) {
    for (int j = 0; j < d; j++)
        out[j] = x[j] - mu[j];
}

static double sqnorm(int d, const double *v) {
    double s = 0.0;
    for (int j = 0; j < d; j++)
        s += v[j] * v[j];
    return s;
}

double mixture(int n, int k, int d, const double *x, const double *mu, double *tmp) {
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        double best = 0.0;
        for (int c = 0; c < k; c++) {
            subtract(d, &x[i * d], &mu[c * d], tmp);
            best += exp(-0.5 * sqnorm(d, tmp));
        }
        total += log(best);
    }
    return total;
}
