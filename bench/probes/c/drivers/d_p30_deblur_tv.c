#include "harness.h"
#define W 7
#define H 5
double deblur_objective(const double *u, int w, int h, const double *kern,
                        const double *obs, double lambda, double eps);
void grad_deblur_objective(const double *u, double *d_u, int w, int h, const double *kern,
                           double *d_kern, const double *obs, double *d_obs, double lambda,
                           double *d_lambda, double eps, double *d_eps, double d_return);
#define OK_ (W * H)
#define OO (OK_ + 9)
#define OL (OO + W * H)
static int np(void) { return OL + 2; }
static void init(double *p)
{
    fill(p, W * H, 0, 1);
    for (int i = 0; i < 9; i++) p[OK_ + i] = 1.0 / 9.0 + urand(-0.03, 0.03);
    fill(p + OO, W * H, 0, 1);
    p[OL] = 0.15;
    p[OL + 1] = 0.05;
}
static double eval(const double *p) { return deblur_objective(p, W, H, p + OK_, p + OO, p[OL], p[OL + 1]); }
static void grad(const double *p, double *g)
{
    grad_deblur_objective(p, g, W, H, p + OK_, g + OK_, p + OO, g + OO, p[OL], &g[OL],
                          p[OL + 1], &g[OL + 1], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
