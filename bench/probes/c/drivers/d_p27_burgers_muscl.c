#include "harness.h"
#define N 24
double burgers_misfit(int n, const double *u0, double dx, double tfinal, double cfl,
                      const double *target);
void grad_burgers_misfit(int n, const double *u0, double *d_u0, double dx, double *d_dx,
                         double tfinal, double cfl, const double *target, double *d_target,
                         double d_return);
static int np(void) { return N + 1 + N; }
static void init(double *p)
{
    for (int i = 0; i < N; i++)
        p[i] = 1.0 + 0.4 * sin(6.283185307179586 * (i + 0.5) / N) + urand(-0.05, 0.05);
    p[N] = 1.0 / N;
    fill(p + N + 1, N, 0.6, 1.4);
}
/* tfinal = 0.1037: about 8 steps at cfl 0.4, chosen off a step boundary */
static double eval(const double *p) { return burgers_misfit(N, p, p[N], 0.1037, 0.4, p + N + 1); }
static void grad(const double *p, double *g)
{
    grad_burgers_misfit(N, p, g, p[N], &g[N], 0.1037, 0.4, p + N + 1, g + N + 1, 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
