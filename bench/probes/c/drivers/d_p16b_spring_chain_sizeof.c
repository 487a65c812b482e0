#include "harness.h"
#define NN 4
double chain_loss(int n, double *x, double *v, const double *k, const double *m,
                  double L0, double dt, int nsteps, const double *target);
void grad_chain_loss(int n, double *x, double *d_x, double *v, double *d_v, const double *k,
                     double *d_k, const double *m, double *d_m, double L0, double *d_L0, double dt,
                     double *d_dt, int nsteps, const double *target, double *d_target,
                     double d_return);
#define OV NN
#define OK_ (2 * NN)
#define OM (OK_ + NN - 1)
#define OL (OM + NN)
#define OT (OL + 2)
static int np(void) { return OT + NN; }
static void init(double *p)
{
    for (int i = 0; i < NN; i++) p[i] = i + urand(-0.2, 0.2);
    fill(p + OV, NN, -0.5, 0.5); fill(p + OK_, NN - 1, 1.0, 3.0); fill(p + OM, NN, 0.5, 1.5);
    p[OL] = 1.0; p[OL + 1] = 0.05; fill(p + OT, NN, 0.0, 3.0);
}
static double eval(const double *p)
{
    double x[NN], v[NN];
    memcpy(x, p, sizeof x); memcpy(v, p + OV, sizeof v);
    return chain_loss(NN, x, v, p + OK_, p + OM, p[OL], p[OL + 1], 5, p + OT);
}
static void grad(const double *p, double *g)
{
    double x[NN], v[NN];
    memcpy(x, p, sizeof x); memcpy(v, p + OV, sizeof v);
    grad_chain_loss(NN, x, g, v, g + OV, p + OK_, g + OK_, p + OM, g + OM, p[OL], &g[OL],
                    p[OL + 1], &g[OL + 1], 5, p + OT, g + OT, 1.0);
}
#define SIDE_EFFECTS
static double side(const double *p)
{
    double x[NN], v[NN], x2[NN], v2[NN], g[OT + NN] = {0};
    memcpy(x, p, sizeof x); memcpy(v, p + OV, sizeof v); memcpy(x2, x, sizeof x); memcpy(v2, v, sizeof v);
    chain_loss(NN, x, v, p + OK_, p + OM, p[OL], p[OL + 1], 5, p + OT);
    grad_chain_loss(NN, x2, g, v2, g + OV, p + OK_, g + OK_, p + OM, g + OM, p[OL], &g[OL],
                    p[OL + 1], &g[OL + 1], 5, p + OT, g + OT, 1.0);
    return fmax(maxdiff(x, x2, NN), maxdiff(v, v2, NN));
}
#define HARNESS_MAIN
#include "harness.h"
