#include "harness.h"
#define NN 5
double jacobi2d(int n, const double *src, double *work1, double *work2, int iters, double w);
void grad_jacobi2d(int n, const double *src, double *d_src, double *work1, double *d_work1,
                   double *work2, double *d_work2, int iters, double w, double *d_w,
                   double d_return);
static int np(void) { return NN * NN + 1; }
static void init(double *p) { fill(p, NN * NN, -1.0, 1.0); p[NN * NN] = 0.8; }
static double eval(const double *p)
{
    double w1[NN * NN], w2[NN * NN];
    return jacobi2d(NN, p, w1, w2, 3, p[NN * NN]);
}
static void grad(const double *p, double *g)
{
    double w1[NN * NN], w2[NN * NN], d1[NN * NN] = {0}, d2[NN * NN] = {0};
    grad_jacobi2d(NN, p, g, w1, d1, w2, d2, 3, p[NN * NN], &g[NN * NN], 1.0);
}
#define SIDE_EFFECTS
static double side(const double *p)
{
    double w1[NN * NN], w2[NN * NN], v1[NN * NN], v2[NN * NN], d1[NN * NN] = {0}, d2[NN * NN] = {0}, g[NN * NN + 1] = {0};
    jacobi2d(NN, p, w1, w2, 3, p[NN * NN]);
    grad_jacobi2d(NN, p, g, v1, d1, v2, d2, 3, p[NN * NN], &g[NN * NN], 1.0);
    return fmax(maxdiff(w1, v1, NN * NN), maxdiff(w2, v2, NN * NN));
}
#define HARNESS_MAIN
#include "harness.h"
