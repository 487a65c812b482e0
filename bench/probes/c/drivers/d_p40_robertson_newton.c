#include "harness.h"
double rober_misfit(const double logk[3], const double y0[3], double dt, int nsteps,
                    int every, const double *obs, const double w[3]);
void grad_rober_misfit(const double logk[3], double d_logk[3], const double y0[3],
                       double d_y0[3], double dt, double *d_dt, int nsteps, int every,
                       const double *obs, double *d_obs, const double w[3], double d_w[3],
                       double d_return);
#define NST 40
#define EVERY 5
#define NOBS (NST / EVERY)
static double OBS[3 * NOBS];
static const double W[3] = {1.0, 1.0e4, 1.0};
/* p: logk[3], y0[3], dt */
static int np(void) { return 7; }
static void init(double *p)
{
    p[0] = log(0.04); p[1] = log(3.0e7); p[2] = log(1.0e4);
    p[3] = 1.0; p[4] = 2.0e-5; p[5] = 0.01;  /* y0[1] = 0 is a branch point of the Newton root */
    p[6] = 0.05;
    for (int i = 0; i < NOBS; i++) {
        double t = 0.05 * EVERY * (i + 1);
        OBS[3 * i] = 1.0 - 0.035 * t + urand(-0.002, 0.002);
        OBS[3 * i + 1] = 3.5e-5 + urand(-1e-6, 1e-6);
        OBS[3 * i + 2] = 0.035 * t + urand(-0.002, 0.002);
    }
}
static double eval(const double *p) { return rober_misfit(p, p + 3, p[6], NST, EVERY, OBS, W); }
static void grad(const double *p, double *g)
{
    static double dobs[3 * NOBS], dw[3];
    grad_rober_misfit(p, g, p + 3, g + 3, p[6], &g[6], NST, EVERY, OBS, dobs, W, dw, 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
