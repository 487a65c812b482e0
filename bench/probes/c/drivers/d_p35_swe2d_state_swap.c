#include "harness.h"
#define NX 8
#define NY 8
double swe_misfit(const double h0[NY][NX], double g, double dt, int nsteps,
                  const double hobs[NY][NX]);
void grad_swe_misfit(const double h0[NY][NX], double d_h0[NY][NX], double g, double *d_g,
                     double dt, int nsteps, const double hobs[NY][NX], double d_hobs[NY][NX],
                     double d_return);
/* p: h0[NY*NX], g, hobs[NY*NX] */
static int np(void) { return 2 * NX * NY + 1; }
static void init(double *p)
{
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            p[j * NX + i] = 1.0 + 0.2 * exp(-((i - 3.3) * (i - 3.3) + (j - 4.1) * (j - 4.1)) / 4.0)
                            + urand(-0.01, 0.01);
    p[NX * NY] = 9.81;
    fill(p + NX * NY + 1, NX * NY, 0.95, 1.1);
}
static double eval(const double *p)
{
    return swe_misfit((const double (*)[NX])p, p[NX * NY], 0.004, 12,
                      (const double (*)[NX])(p + NX * NY + 1));
}
static void grad(const double *p, double *g)
{
    grad_swe_misfit((const double (*)[NX])p, (double (*)[NX])g, p[NX * NY], &g[NX * NY], 0.004, 12,
                    (const double (*)[NX])(p + NX * NY + 1), (double (*)[NX])(g + NX * NY + 1), 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
