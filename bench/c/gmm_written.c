/*
 * Gaussian mixture objective, written the way such code usually is: small helpers that write
 * into work buffers the objective allocates once and reuses for every point and component,
 * log-sum-exp over a buffer, and a Wishart prior whose normalising constant uses lgamma.
 *
 *   alphas[k]              unnormalised log weights
 *   means[k * d]           component means, row-major
 *   icf[k * d (d + 1) / 2] per component: d log-diagonal entries of Q, then its strictly lower
 *                          triangle, column by column
 *   x[n * d]               the points, row-major
 *   gamma, m               the Wishart prior's scale and degrees of freedom (a Wishart struct,
 *                          gmm.h, passed by value to the prior)
 */
#include <stdlib.h>

#include "gmm.h"

static void subtract(int d, const double *a, const double *b, double *out)
{
    for (int i = 0; i < d; i++)
        out[i] = a[i] - b[i];
}

/* out = Q v, with Q = diag(qdiag) + the strictly lower triangle ltri (column by column). */
static void q_times(int d, const double *qdiag, const double *ltri, const double *v, double *out)
{
    for (int i = 0; i < d; i++)
        out[i] = qdiag[i] * v[i];
    int at = 0;
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++) {
            out[j] += ltri[at] * v[i];
            at++;
        }
}

static void preprocess_qs(int d, int k, const double *icf, double *sum_qs, double *qdiags)
{
    int icf_sz = d * (d + 1) / 2;
    for (int c = 0; c < k; c++) {
        sum_qs[c] = 0.0;
        for (int i = 0; i < d; i++) {
            double q = icf[c * icf_sz + i];
            sum_qs[c] += q;
            qdiags[c * d + i] = exp(q);
        }
    }
}

static double log_gamma_distrib(double a, int p)
{
    double out = 0.25 * p * (p - 1) * log(M_PI);
    for (int j = 1; j <= p; j++)
        out += lgamma(a + 0.5 * (1 - j));
    return out;
}

static double log_wishart_prior(int d, int k, Wishart wishart, const double *sum_qs, const double *qdiags,
                                const double *icf)
{
    int n = d + wishart.m + 1;
    int icf_sz = d * (d + 1) / 2;
    double c = n * d * (log(wishart.gamma) - 0.5 * log(2.0)) - log_gamma_distrib(0.5 * n, d);
    double out = 0.0;
    for (int ik = 0; ik < k; ik++) {
        double frobenius = sqnorm(d, &qdiags[ik * d]) + sqnorm(icf_sz - d, &icf[ik * icf_sz + d]);
        out += 0.5 * wishart.gamma * wishart.gamma * frobenius - wishart.m * sum_qs[ik];
    }
    return out - k * c;
}

double gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                     const double *icf, const double *x, double gamma, int m)
{
    const double constant = -n * d * 0.5 * log(2.0 * M_PI);
    int icf_sz = d * (d + 1) / 2;
    double *qdiags = malloc(d * k * sizeof(double));
    double *sum_qs = malloc(k * sizeof(double));
    double *xcentered = malloc(d * sizeof(double));
    double *qxcentered = malloc(d * sizeof(double));
    double *main_term = malloc(k * sizeof(double));

    preprocess_qs(d, k, icf, sum_qs, qdiags);

    double slse = 0.0;
    for (int ix = 0; ix < n; ix++) {
        for (int ik = 0; ik < k; ik++) {
            subtract(d, &x[ix * d], &means[ik * d], xcentered);
            q_times(d, &qdiags[ik * d], &icf[ik * icf_sz + d], xcentered, qxcentered);
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(d, qxcentered);
        }
        slse += logsumexp(k, main_term);
    }
    double lse_alphas = logsumexp(k, alphas);
    Wishart wishart = {gamma, m};
    double err = constant + slse - n * lse_alphas + log_wishart_prior(d, k, wishart, sum_qs, qdiags, icf);

    free(qdiags);
    free(sum_qs);
    free(xcentered);
    free(qxcentered);
    free(main_term);
    return err;
}
