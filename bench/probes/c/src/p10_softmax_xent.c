/* Multinomial logistic regression loss; a log-softmax helper writes into a
 * scratch buffer reused across the samples. */
#include <math.h>
#include <stdlib.h>

static double log_softmax(int k, const double *z, double *lp)
{
    double mx = z[0];
    for (int c = 1; c < k; c++)
        if (z[c] > mx) mx = z[c];
    double s = 0.0;
    for (int c = 0; c < k; c++) {
        lp[c] = z[c] - mx;
        s += exp(lp[c]);
    }
    double lse = log(s);
    for (int c = 0; c < k; c++)
        lp[c] -= lse;
    return lse + mx;
}

double xent_loss(int n, int d, int k, const double *X, const int *y,
                 const double *W, const double *bias, double l2)
{
    double *z = malloc(k * sizeof(double));
    double *lp = malloc(k * sizeof(double));
    double loss = 0.0;
    for (int i = 0; i < n; i++) {
        const double *xi = X + i * d;
        for (int c = 0; c < k; c++) {
            double s = bias[c];
            for (int j = 0; j < d; j++)
                s += W[c * d + j] * xi[j];
            z[c] = s;
        }
        log_softmax(k, z, lp);
        loss -= lp[y[i]];
    }
    double reg = 0.0;
    for (int t = 0; t < k * d; t++)
        reg += W[t] * W[t];
    free(z);
    free(lp);
    return loss / n + 0.5 * l2 * reg;
}
