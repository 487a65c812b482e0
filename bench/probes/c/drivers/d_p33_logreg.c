#include <stddef.h>
#include "harness.h"
#define N 30
#define D 4
double logreg_nll(const double *X, const int *y, const double *sw, size_t n, size_t d,
                  const double *w, double bias, double l2);
void grad_logreg_nll(const double *X, double *d_X, const int *y, const double *sw, double *d_sw,
                     size_t n, size_t d, const double *w, double *d_w, double bias,
                     double *d_bias, double l2, double *d_l2, double d_return);
static int Y[N];
/* p: X (N*D), sw N, w D, bias, l2 */
#define OSW (N * D)
#define OW (OSW + N)
#define OB (OW + D)
static int np(void) { return OB + 2; }
static void init(double *p)
{
    fill(p, N * D, -2, 2);
    fill(p + OSW, N, 0.5, 1.5);
    fill(p + OW, D, -1.5, 1.5);
    p[OB] = 0.3; p[OB + 1] = 0.1;
    for (int i = 0; i < N; i++) Y[i] = urand(0, 1) < 0.5;
}
static double eval(const double *p) { return logreg_nll(p, Y, p + OSW, N, D, p + OW, p[OB], p[OB + 1]); }
static void grad(const double *p, double *g)
{
    grad_logreg_nll(p, g, Y, p + OSW, g + OSW, N, D, p + OW, g + OW, p[OB], &g[OB], p[OB + 1],
                    &g[OB + 1], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
