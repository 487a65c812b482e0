#include "harness.h"
#define NN 6
double gs_energy(int n, const double *f, double *u, int sweeps, double h);
void grad_gs_energy(int n, const double *f, double *d_f, double *u, double *d_u, int sweeps,
                    double h, double *d_h, double d_return);
static int np(void) { return 2 * NN + 1; }
static void init(double *p) { fill(p, 2 * NN, -1.0, 1.0); p[2 * NN] = 1.0 / (NN + 1); }
static double eval(const double *p)
{
    double u[NN]; memcpy(u, p + NN, sizeof u);
    return gs_energy(NN, p, u, 3, p[2 * NN]);
}
static void grad(const double *p, double *g)
{
    double u[NN]; memcpy(u, p + NN, sizeof u);
    grad_gs_energy(NN, p, g, u, g + NN, 3, p[2 * NN], &g[2 * NN], 1.0);
}
#define SIDE_EFFECTS
static double side(const double *p)
{
    double u[NN], u2[NN], g[2 * NN + 1] = {0};
    memcpy(u, p + NN, sizeof u); memcpy(u2, u, sizeof u);
    gs_energy(NN, p, u, 3, p[2 * NN]);
    grad_gs_energy(NN, p, g, u2, g + NN, 3, p[2 * NN], &g[2 * NN], 1.0);
    return maxdiff(u, u2, NN);
}
#define HARNESS_MAIN
#include "harness.h"
