#include <math.h>

/* Two helpers fill work arrays that the next call reads, inside a double loop: the reverse
 * sweep fills them again by calling the helpers, rather than keeping each iteration's copy. */
static void subtract(int d, const double *a, const double *b, double *out) {
    for (int i = 0; i < d; i++)
        out[i] = a[i] - b[i];
}

static void scale_cumulative(int d, const double *q, const double *v, double *out) {
    for (int i = 0; i < d; i++)
        out[i] = q[i] * v[i];
    for (int i = 1; i < d; i++)
        out[i] += out[i - 1];
}

static double sqnorm(int d, const double *v) {
    double s = 0.0;
    for (int i = 0; i < d; i++)
        s += v[i] * v[i];
    return s;
}

double remade_work_arrays(int n, int k, int d, const double *x, const double *mu, const double *q,
                          double *diff, double *scaled) {
    double total = 0.0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < k; c++) {
            subtract(d, &x[i * d], &mu[c * d], diff);
            scale_cumulative(d, &q[c * d], diff, scaled);
            total += exp(-sqnorm(d, scaled));
        }
    return total;
}
