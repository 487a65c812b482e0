/* Negative-binomial regression log-likelihood (lgamma) plus a probit
 * zero-inflation term through erfc. */
#include <math.h>

#ifndef M_SQRT1_2
#define M_SQRT1_2 0.70710678118654752440
#endif

static double log_norm_cdf(double z)
{
    return log(0.5 * erfc(-z * M_SQRT1_2));
}

double zinb_loglik(int n, int p, const double *X, const int *y,
                   const double *beta, const double *gam, double log_r)
{
    double r = exp(log_r);
    double ll = 0.0;
    for (int i = 0; i < n; i++) {
        double eta = 0.0, zeta = 0.0;
        for (int j = 0; j < p; j++) {
            eta += X[i * p + j] * beta[j];
            zeta += X[i * p + j] * gam[j];
        }
        double mu = exp(eta);
        double lnb = lgamma(y[i] + r) - lgamma(r) - lgamma(y[i] + 1.0)
                   + r * log(r / (r + mu)) + y[i] * log(mu / (r + mu));
        double lpi = log_norm_cdf(zeta);
        double l1pi = log_norm_cdf(-zeta);
        if (y[i] == 0) {
            double a = lpi, b = l1pi + lnb;
            double m = a > b ? a : b;
            ll += m + log(exp(a - m) + exp(b - m));
        } else {
            ll += l1pi + lnb;
        }
    }
    return ll;
}
