#include "harness.h"
#define NST 10
double lv_misfit(const double *par, const double *y0, int nsteps, double h, const double *obs);
void grad_lv_misfit(const double *par, double *d_par, const double *y0, double *d_y0, int nsteps,
                    double h, double *d_h, const double *obs, double *d_obs, double d_return);
static int np(void) { return 4 + 2 + 1 + 2 * NST; }
static void init(double *p)
{
    p[0] = 1.1; p[1] = 0.4; p[2] = 0.1; p[3] = 0.4;
    p[4] = 10.0 + urand(-1, 1); p[5] = 5.0 + urand(-1, 1);
    p[6] = 0.05;
    fill(p + 7, 2 * NST, 4.0, 12.0);
}
static double eval(const double *p) { return lv_misfit(p, p + 4, NST, p[6], p + 7); }
static void grad(const double *p, double *g) { grad_lv_misfit(p, g, p + 4, g + 4, NST, p[6], &g[6], p + 7, g + 7, 1.0); }
#define HARNESS_MAIN
#include "harness.h"
