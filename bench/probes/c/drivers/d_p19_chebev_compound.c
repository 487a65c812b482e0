#include "harness.h"
#define MC 6
#define NP_ 8
#define NCOR 3
double cheb_fit(double a, double b, double c[], int m, const double *xs,
                const double *fs, int npts, const double *corr, int ncorr);
void grad_cheb_fit(double a, double *d_a, double b, double *d_b, double *c, double *d_c, int m,
                   const double *xs, double *d_xs, const double *fs, double *d_fs, int npts,
                   const double *corr, double *d_corr, int ncorr, double d_return);
#define OC 2
#define OXS (OC + MC)
#define OFS (OXS + NP_)
#define OCO (OFS + NP_)
static int np(void) { return OCO + NCOR; }
static void init(double *p)
{
    p[0] = -1.2; p[1] = 1.3;
    fill(p + OC, MC, -1, 1); fill(p + OXS, NP_, -1, 1); fill(p + OFS, NP_, -1, 1);
    fill(p + OCO, NCOR, -0.3, 0.3);
}
static double eval(const double *p)
{
    double c[MC]; memcpy(c, p + OC, sizeof c);
    return cheb_fit(p[0], p[1], c, MC, p + OXS, p + OFS, NP_, p + OCO, NCOR);
}
static void grad(const double *p, double *g)
{
    double c[MC]; memcpy(c, p + OC, sizeof c);
    grad_cheb_fit(p[0], &g[0], p[1], &g[1], c, g + OC, MC, p + OXS, g + OXS, p + OFS, g + OFS,
                  NP_, p + OCO, g + OCO, NCOR, 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
