#include "harness.h"
#define NS 4
#define DD 3
#define KK 3
double xent_loss(int n, int d, int k, const double *X, const int *y,
                 const double *W, const double *bias, double l2);
void grad_xent_loss(int n, int d, int k, const double *X, double *d_X, const int *y,
                    const double *W, double *d_W, const double *bias, double *d_bias, double l2,
                    double *d_l2, double d_return);
static const int Y[NS] = {0, 2, 1, 2};
static int np(void) { return NS * DD + KK * DD + KK + 1; }
static void init(double *p) { fill(p, np(), -1.0, 1.0); p[np() - 1] = 0.1; }
static double eval(const double *p)
{
    return xent_loss(NS, DD, KK, p, Y, p + NS * DD, p + NS * DD + KK * DD, p[np() - 1]);
}
static void grad(const double *p, double *g)
{
    grad_xent_loss(NS, DD, KK, p, g, Y, p + NS * DD, g + NS * DD, p + NS * DD + KK * DD,
                   g + NS * DD + KK * DD, p[np() - 1], &g[np() - 1], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
