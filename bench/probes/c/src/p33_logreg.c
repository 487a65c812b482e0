/* Binary logistic regression: mean negative log-likelihood with the
 * numerically stable softplus, L2 penalty on the weights (not the bias),
 * per-sample weights, labels as int 0/1. Returns NAN on bad input
 * as a library routine would. */
#include <stddef.h>
#include <math.h>

/* log(1 + exp(z)) without overflow or cancellation */
static double softplus(double z)
{
    if (z > 0.0)
        return z + log1p(exp(-z));
    return log1p(exp(z));
}

static double dot(const double *restrict a, const double *restrict b, size_t n)
{
    double s = 0.0;
    for (size_t k = 0; k < n; ++k)
        s += a[k] * b[k];
    return s;
}

double logreg_nll(const double *X, const int *y, const double *sw, size_t n, size_t d,
                  const double *w, double bias, double l2)
{
    if (n == 0 || l2 < 0.0)
        return NAN;

    double nll = 0.0, wsum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double *xi = X + i * d;
        const double z = dot(xi, w, d) + bias;
        const double wi = sw[i];
        /* -log sigma(z) = softplus(-z), -log(1 - sigma(z)) = softplus(z) */
        nll += wi * (y[i] == 1 ? softplus(-z) : softplus(z));
        wsum += wi;
    }
    return nll / wsum + 0.5 * l2 * dot(w, w, d);
}
