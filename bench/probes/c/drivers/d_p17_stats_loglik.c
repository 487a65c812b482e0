#include "harness.h"
#define NS 6
#define PP 2
double zinb_loglik(int n, int p, const double *X, const int *y,
                   const double *beta, const double *gam, double log_r);
void grad_zinb_loglik(int n, int p, const double *X, double *d_X, const int *y, const double *beta,
                      double *d_beta, const double *gam, double *d_gam, double log_r,
                      double *d_log_r, double d_return);
static const int Y[NS] = {0, 3, 1, 0, 7, 2};
static int np(void) { return NS * PP + 2 * PP + 1; }
static void init(double *p) { fill(p, np(), -1.0, 1.0); p[np() - 1] = 0.4; }
static double eval(const double *p)
{
    return zinb_loglik(NS, PP, p, Y, p + NS * PP, p + NS * PP + PP, p[np() - 1]);
}
static void grad(const double *p, double *g)
{
    grad_zinb_loglik(NS, PP, p, g, Y, p + NS * PP, g + NS * PP, p + NS * PP + PP,
                     g + NS * PP + PP, p[np() - 1], &g[np() - 1], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
