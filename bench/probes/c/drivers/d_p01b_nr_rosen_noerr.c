#include "harness.h"
#define NN 6
double rosen(double p[], int n, double alpha);
void grad_rosen(double *p, double *d_p, int n, double alpha, double *d_alpha, double d_return);
static int np(void) { return NN + 1; }
static void init(double *p) { fill(p, NN, -1.2, 1.2); p[NN] = 10.0; }
/* NR style: the objective reads v[1..n]; v[0] is padding */
static double eval(const double *p)
{
    double v[NN + 1]; v[0] = 0.0; memcpy(v + 1, p, NN * sizeof(double));
    return rosen(v, NN, p[NN]);
}
static void grad(const double *p, double *g)
{
    double v[NN + 1], dv[NN + 1] = {0};
    v[0] = 0.0; memcpy(v + 1, p, NN * sizeof(double));
    grad_rosen(v, dv, NN, p[NN], &g[NN], 1.0);
    memcpy(g, dv + 1, NN * sizeof(double));
}
#define HARNESS_MAIN
#include "harness.h"
