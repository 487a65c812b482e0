#include "harness.h"
typedef struct {
    double mu;
    double k1, k2;
    double b;
    double lam_lo, lam_hi;
} FiberParams;
void fiber_fit(const FiberParams *prm, int n, const double *lam, const double *sigma_obs,
               double delta, double *loss, double *max_abs_res);
void grad_fiber_fit(const FiberParams *prm, FiberParams *d_prm, int n, const double *lam,
                    double *d_lam, const double *sigma_obs, double *d_sigma_obs, double delta,
                    double *loss, double *d_loss, double *max_abs_res, double *d_max_abs_res);
#define NPTS 25
static double LAM[NPTS], SOBS[NPTS];
/* p: mu, k1, k2, b, lam_lo, lam_hi, lam[NPTS], sigma_obs[NPTS] */
static int np(void) { return 6 + 2 * NPTS; }
static void init(double *p)
{
    p[0] = 0.8; p[1] = 0.35; p[2] = 1.7; p[3] = 1.3; p[4] = 1.0431; p[5] = 1.1927;
    for (int i = 0; i < NPTS; i++) {
        p[6 + i] = 1.0123 + 0.0131 * i;
        p[6 + NPTS + i] = 0.8 * (p[6 + i] * p[6 + i] - 1.0 / p[6 + i]) * (1.0 + 0.4 * i / NPTS)
                          + urand(-0.03, 0.03);
    }
    p[6 + NPTS + 11] += 0.4;   /* outlier: linear Huber branch */
}
static double eval(const double *p)
{
    double loss, rmax;
    fiber_fit((const FiberParams *)p, NPTS, p + 6, p + 6 + NPTS, 0.1, &loss, &rmax);
    return loss;
}
static void grad(const double *p, double *g)
{
    double loss = 0.0, rmax = 0.0, dloss = 1.0, drmax = 0.0;
    grad_fiber_fit(&(FiberParams){p[0], p[1], p[2], p[3], p[4], p[5]}, (FiberParams *)g, NPTS,
                   p + 6, g + 6, p + 6 + NPTS, g + 6 + NPTS, 0.1, &loss, &dloss, &rmax, &drmax);
}
#define HARNESS_MAIN
#include "harness.h"
