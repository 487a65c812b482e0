/*
 * Gaussian mixture model: the objective's types, constants and the small vector helpers its
 * file shares with others (included by gmm_written.c).
 */
#ifndef GMM_H
#define GMM_H

#include <math.h>

#ifndef M_PI /* strict C99 leaves it out of math.h */
#define M_PI 3.14159265358979323846
#endif

/* The Wishart prior on each component's precision: scale gamma, m extra degrees of freedom. */
typedef struct {
    double gamma;
    int m;
} Wishart;

static inline double arr_max(int n, const double *v)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

static inline double logsumexp(int n, const double *v)
{
    double mx = arr_max(n, v);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += exp(v[i] - mx);
    return log(s) + mx;
}

static inline double sqnorm(int n, const double *v)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    return s;
}

double gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                     const double *icf, const double *x, double gamma, int m);

#endif
