#include "harness.h"
#define NK 9
#define M 20
double calib_misfit(const double *xk, const double *yk, int nk, const double *raw,
                    const double *ref, int m, double gain, double offset);
void grad_calib_misfit(const double *xk, double *d_xk, const double *yk, double *d_yk, int nk,
                       const double *raw, double *d_raw, const double *ref, double *d_ref, int m,
                       double gain, double *d_gain, double offset, double *d_offset,
                       double d_return);
/* p: xk NK, yk NK, raw M, ref M, gain, offset */
#define OY NK
#define ORAW (2 * NK)
#define OREF (ORAW + M)
#define OG (OREF + M)
static int np(void) { return OG + 2; }
static void init(double *p)
{
    for (int k = 0; k < NK; k++) {
        p[k] = k + urand(-0.3, 0.3);
        p[OY + k] = sqrt(1.0 + k) + urand(-0.1, 0.1);
    }
    /* raw mapped through gain 1.1, offset -0.5 lands in [-0.9, 8.9]: some
       points outside the table on both ends, none on a knot */
    for (int i = 0; i < M; i++) p[ORAW + i] = (-0.3 + 0.5 * i) + 0.137;
    fill(p + OREF, M, 0.8, 3.0);
    p[OG] = 1.1; p[OG + 1] = -0.5;
}
static double eval(const double *p)
{
    return calib_misfit(p, p + OY, NK, p + ORAW, p + OREF, M, p[OG], p[OG + 1]);
}
static void grad(const double *p, double *g)
{
    grad_calib_misfit(p, g, p + OY, g + OY, NK, p + ORAW, g + ORAW, p + OREF, g + OREF, M,
                      p[OG], &g[OG], p[OG + 1], &g[OG + 1], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
