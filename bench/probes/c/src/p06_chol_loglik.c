/* Multivariate normal log-density via an in-place Cholesky factor of a
 * copy of the covariance (row-major, lower triangle used). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int cholesky(double *L, int n)
{
    for (int j = 0; j < n; j++) {
        double s = L[j * n + j];
        for (int k = 0; k < j; k++)
            s -= L[j * n + k] * L[j * n + k];
        if (s <= 0.0)
            return -1;
        L[j * n + j] = sqrt(s);
        for (int i = j + 1; i < n; i++) {
            double t = L[i * n + j];
            for (int k = 0; k < j; k++)
                t -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = t / L[j * n + j];
        }
    }
    return 0;
}

double mvn_logpdf(const double *x, const double *mu, const double *S, int n)
{
    double *L = malloc(n * n * sizeof(double));
    double *z = malloc(n * sizeof(double));
    memcpy(L, S, n * n * sizeof(double));
    if (cholesky(L, n) != 0) {
        free(L);
        free(z);
        return -INFINITY;
    }
    /* forward substitution L z = x - mu */
    for (int i = 0; i < n; i++) {
        double t = x[i] - mu[i];
        for (int k = 0; k < i; k++)
            t -= L[i * n + k] * z[k];
        z[i] = t / L[i * n + i];
    }
    double q = 0.0, logdet = 0.0;
    for (int i = 0; i < n; i++) {
        q += z[i] * z[i];
        logdet += log(L[i * n + i]);
    }
    free(L);
    free(z);
    return -0.5 * q - logdet - 0.5 * n * log(2.0 * M_PI);
}
