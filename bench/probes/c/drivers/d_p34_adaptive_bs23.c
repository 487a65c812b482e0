#include "harness.h"
double vdp_shoot(const double *y0, double mu, double tend, const double *target, double rtol,
                 int *nsteps_out);
void grad_vdp_shoot(const double *y0, double *d_y0, double mu, double *d_mu, double tend,
                    double *d_tend, const double *target, double *d_target, double rtol,
                    int *nsteps_out, int *d_nsteps_out, double d_return);
/* p: y0[2], mu, tend, target[2] */
static int np(void) { return 6; }
static void init(double *p)
{
    p[0] = 1.7; p[1] = -0.3; p[2] = 1.3; p[3] = 2.417; p[4] = -0.8; p[5] = 1.1;
}
static int NSTEPS;
static double eval(const double *p) { return vdp_shoot(p, p[2], p[3], p + 4, 1e-4, &NSTEPS); }
static void grad(const double *p, double *g)
{
    int ns = 0, d_ns = 0;   /* the gradient takes a shadow of the int out-parameter */
    grad_vdp_shoot(p, g, p[2], &g[2], p[3], &g[3], p + 4, g + 4, 1e-4, &ns, &d_ns, 1.0);
    printf("accepted steps (gradient's forward sweep): %d\n", ns);
}
#define HARNESS_MAIN
#include "harness.h"
