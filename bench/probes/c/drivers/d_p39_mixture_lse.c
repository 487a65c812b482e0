#include "harness.h"
double mixture_nll(int K, const double *restrict logit, const double *restrict mu,
                   const double *restrict log_sigma, int N, int stride,
                   const double *restrict x, double conc);
void grad_mixture_nll(int K, const double *restrict logit, double *restrict d_logit,
                      const double *restrict mu, double *restrict d_mu,
                      const double *restrict log_sigma, double *restrict d_log_sigma, int N,
                      int stride, const double *restrict x, double *restrict d_x, double conc,
                      double *d_conc, double d_return);
#define K 4
#define NS 41
static int np(void) { return 3 * K + NS + 1; }
static void init(double *p)
{
    fill(p, K, -0.5, 0.5);
    p[K] = -2.0; p[K + 1] = -0.3; p[K + 2] = 0.8; p[K + 3] = 2.5;
    fill(p + 2 * K, K, -0.6, 0.2);
    for (int i = 0; i < NS; i++) p[3 * K + i] = urand(-3.0, 3.5);
    p[3 * K + NS] = 1.5;
}
static double eval(const double *p)
{
    return mixture_nll(K, p, p + K, p + 2 * K, NS, 3, p + 3 * K, p[3 * K + NS]);
}
static void grad(const double *p, double *g)
{
    grad_mixture_nll(K, p, g, p + K, g + K, p + 2 * K, g + 2 * K, NS, 3, p + 3 * K, g + 3 * K,
                     p[3 * K + NS], &g[3 * K + NS], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
