#include "harness.h"
#define N 20
#define NS 5
double heat_cn_misfit(int n, const double *u0, const double *kappa, double dt, int nsteps,
                      int nsens, const int *sens, const double *obs, double beta);
void grad_heat_cn_misfit(int n, const double *u0, double *d_u0, const double *kappa,
                         double *d_kappa, double dt, double *d_dt, int nsteps, int nsens,
                         const int *sens, const double *obs, double *d_obs, double beta,
                         double *d_beta, double d_return);
static const int SENS[NS] = {2, 6, 9, 13, 17};
/* p: u0[N], kappa[N+1], dt, obs[NS], beta */
static int np(void) { return N + N + 1 + 1 + NS + 1; }
static void init(double *p)
{
    for (int i = 0; i < N; i++) p[i] = sin(3.14159 * (i + 1) / (N + 1)) + urand(-0.05, 0.05);
    fill(p + N, N + 1, 0.5, 1.5);
    p[2 * N + 1] = 0.002;
    fill(p + 2 * N + 2, NS, 0.2, 0.6);
    p[2 * N + 2 + NS] = 0.01;
}
static double eval(const double *p)
{
    return heat_cn_misfit(N, p, p + N, p[2 * N + 1], 15, NS, SENS, p + 2 * N + 2, p[2 * N + 2 + NS]);
}
static void grad(const double *p, double *g)
{
    grad_heat_cn_misfit(N, p, g, p + N, g + N, p[2 * N + 1], &g[2 * N + 1], 15, NS, SENS,
                        p + 2 * N + 2, g + 2 * N + 2, p[2 * N + 2 + NS], &g[2 * N + 2 + NS], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
