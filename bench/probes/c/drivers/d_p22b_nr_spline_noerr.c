#include "harness.h"
#define NK 6
#define MQ 5
double spline_fit(double xa[], double ya[], int n, double yp1, const double *xq,
                  const double *tq, int m);
void grad_spline_fit(double *xa, double *d_xa, double *ya, double *d_ya, int n, double yp1,
                     double *d_yp1, const double *xq, double *d_xq, const double *tq, double *d_tq,
                     int m, double d_return);
/* p = xa[1..NK], ya[1..NK], yp1, xq[MQ], tq[MQ] */
#define OY NK
#define OP (2 * NK)
#define OQ (OP + 1)
#define OT (OQ + MQ)
static int np(void) { return OT + MQ; }
static void init(double *p)
{
    for (int i = 0; i < NK; i++) p[i] = i + urand(-0.2, 0.2);
    fill(p + OY, NK, -1, 1);
    p[OP] = 0.3;
    for (int i = 0; i < MQ; i++) p[OQ + i] = i + 0.5 + urand(-0.2, 0.2);
    fill(p + OT, MQ, -1, 1);
}
static double eval(const double *p)
{
    double xa[NK + 1], ya[NK + 1];
    xa[0] = ya[0] = 0.0;
    memcpy(xa + 1, p, NK * sizeof(double)); memcpy(ya + 1, p + OY, NK * sizeof(double));
    return spline_fit(xa, ya, NK, p[OP], p + OQ, p + OT, MQ);
}
static void grad(const double *p, double *g)
{
    double xa[NK + 1], ya[NK + 1], dxa[NK + 1] = {0}, dya[NK + 1] = {0};
    xa[0] = ya[0] = 0.0;
    memcpy(xa + 1, p, NK * sizeof(double)); memcpy(ya + 1, p + OY, NK * sizeof(double));
    grad_spline_fit(xa, dxa, ya, dya, NK, p[OP], &g[OP], p + OQ, g + OQ, p + OT, g + OT, MQ, 1.0);
    memcpy(g, dxa + 1, NK * sizeof(double)); memcpy(g + OY, dya + 1, NK * sizeof(double));
}
#define HARNESS_MAIN
#include "harness.h"
