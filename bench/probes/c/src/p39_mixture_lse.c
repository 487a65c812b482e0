/* Negative log-likelihood of a 1-D Gaussian mixture with softmax weights,
 * per-sample component log-densities in a variable-length array, reduced by a
 * numerically stable log-sum-exp whose running maximum is kept with fmax.
 * Samples are visited with a stride (a sub-sampled minibatch); a Dirichlet-
 * like penalty on the weights and a log-normal prior on the scales. */
#include <math.h>

#define LOG_SQRT_2PI 0.91893853320467274178

static double log_sum_exp(int n, const double v[n])
{
    double m = -INFINITY;
    for (int i = 0; i < n; i++)
        m = fmax(m, v[i]);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += exp(v[i] - m);
    return m + log(s);
}

double mixture_nll(int K, const double *restrict logit, const double *restrict mu,
                   const double *restrict log_sigma, int N, int stride,
                   const double *restrict x, double conc)
{
    double logw[K];
    for (int k = 0; k < K; k++) logw[k] = logit[k];
    const double lz = log_sum_exp(K, logw);
    for (int k = 0; k < K; k++) logw[k] -= lz;

    double nll = 0.0;
    int used = 0;
    for (int i = 0; i < N; i += stride) {
        double lp[K];
        for (int k = 0; k < K; k++) {
            const double z = (x[i] - mu[k]) * exp(-log_sigma[k]);
            lp[k] = logw[k] - log_sigma[k] - LOG_SQRT_2PI - 0.5 * z * z;
        }
        nll -= log_sum_exp(K, lp);
        used++;
    }
    nll /= used;
    for (int k = 0; k < K; k++)
        nll -= (conc - 1.0) * logw[k] / used;
    for (int k = 0; k < K; k++)
        nll += 0.5 * log_sigma[k] * log_sigma[k];
    return nll;
}
