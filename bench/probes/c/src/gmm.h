#ifndef GMM_H
#define GMM_H

#include <math.h>

#define PI 3.14159265358979323846

typedef struct {
    double gamma;
    int m;
} Wishart;

static inline double arr_max(int n, const double *x)
{
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (m < x[i])
            m = x[i];
    return m;
}

static inline double sqnorm(int n, const double *x)
{
    double res = x[0] * x[0];
    for (int i = 1; i < n; i++)
        res = res + x[i] * x[i];
    return res;
}

static inline void subtract(int d, const double *x, const double *y, double *out)
{
    for (int id = 0; id < d; id++)
        out[id] = x[id] - y[id];
}

static inline double logsumexp(int n, const double *x)
{
    double mx = arr_max(n, x);
    double semx = 0.;
    for (int i = 0; i < n; i++)
        semx = semx + exp(x[i] - mx);
    return log(semx) + mx;
}

void gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                   const double *icf, const double *x, Wishart wishart, double *err);

#endif
