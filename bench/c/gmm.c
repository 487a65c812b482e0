/*
 * Gaussian mixture model objective (the standard GMM benchmark objective).
 *
 * K components in D dimensions, N points x_i (x[N*D], row-major).
 *   alphas[K]            unnormalised log weights
 *   means[K*D]           component means mu_k (row-major)
 *   icf[K*D*(D+1)/2]     per component, D entries log(diag(Q_k)) followed by the
 *                        D*(D-1)/2 strictly-lower entries of Q_k column by column
 *                        (column 0 rows 1..D-1, column 1 rows 2..D-1, ...)
 * Q_k is the inverse Cholesky factor: Q_k = diag(exp(icf diag)) + strictly lower.
 *
 * f = sum_i logsumexp_k( alpha_k + sum_j log Q_k[j][j] - 0.5 ||Q_k (x_i - mu_k)||^2 )
 *     - N logsumexp_k(alpha_k)
 *     + 0.5 sum_k ||Q_k||_F^2            (Wishart-like prior, gamma = 1, m = 0, constants dropped)
 *
 * Log-sum-exp subtracts the maximum, so the value is finite for any inputs.
 */
#include <math.h>
#include <stdlib.h>

static double log_sum_exp(int n, const double *v)
{
    double m = v[0];
    for (int i = 1; i < n; i++) {
        if (v[i] > m) {
            m = v[i];
        }
    }
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += exp(v[i] - m);
    }
    return m + log(s);
}

/*
 * 0.5 ||Q (x - mu)||^2 with Q's entries at icf[qo ...], x at x[xo ...], mu at means[mo ...].
 * Row r of Q (x - mu) is exp(q_r) (x_r - mu_r) + sum_{c < r} L[r][c] (x_c - mu_c);
 * column c of L starts at offset d + c * (2d - c - 1) / 2.
 */
static double half_sq_mahalanobis(int d, const double *icf, int qo, const double *x, int xo,
                                  const double *means, int mo)
{
    double s = 0.0;
    for (int r = 0; r < d; r++) {
        double v = exp(icf[qo + r]) * (x[xo + r] - means[mo + r]);
        for (int c = 0; c < r; c++) {
            int l = qo + d + c * (2 * d - c - 1) / 2 + (r - c - 1);
            v += icf[l] * (x[xo + c] - means[mo + c]);
        }
        s += v * v;
    }
    return 0.5 * s;
}

double gmm_objective(int d, int k, int n, const double *alphas, const double *means, const double *icf,
                     const double *x)
{
    int isz = d * (d + 1) / 2;
    double *sum_qs = malloc(k * sizeof(double));
    double *main_term = malloc(k * sizeof(double));

    double frob = 0.0;
    for (int kk = 0; kk < k; kk++) {
        sum_qs[kk] = 0.0;
        for (int j = 0; j < d; j++) {
            sum_qs[kk] += icf[kk * isz + j];
            double qd = exp(icf[kk * isz + j]);
            frob += qd * qd;
        }
        for (int j = d; j < isz; j++) {
            frob += icf[kk * isz + j] * icf[kk * isz + j];
        }
    }

    double slse = 0.0;
    for (int i = 0; i < n; i++) {
        for (int kk = 0; kk < k; kk++) {
            main_term[kk] = alphas[kk] + sum_qs[kk] - half_sq_mahalanobis(d, icf, kk * isz, x, i * d, means, kk * d);
        }
        /* log-sum-exp over the components, written out here (main_term changes every i) */
        double m = main_term[0];
        for (int kk = 1; kk < k; kk++) {
            if (main_term[kk] > m) {
                m = main_term[kk];
            }
        }
        double se = 0.0;
        for (int kk = 0; kk < k; kk++) {
            se += exp(main_term[kk] - m);
        }
        slse += m + log(se);
    }

    double result = slse - n * log_sum_exp(k, alphas) + 0.5 * frob;
    free(main_term);
    free(sum_qs);
    return result;
}
