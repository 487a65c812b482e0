#include "harness.h"
#define NN 5
double gp_quad(double x[], double y[], int n, double ell, double sf2);
void grad_gp_quad(double *x, double *d_x, double *y, double *d_y, int n, double ell, double *d_ell,
                  double sf2, double *d_sf2, double d_return);
static int np(void) { return 2 * NN + 2; }
static void init(double *p) { fill(p, 2 * NN, -1.0, 1.0); p[2 * NN] = 0.8; p[2 * NN + 1] = 1.3; }
/* NR style: x[1..n], y[1..n]; element 0 is padding */
static double eval(const double *p)
{
    double x[NN + 1] = {0}, y[NN + 1] = {0};
    memcpy(x + 1, p, NN * sizeof(double)); memcpy(y + 1, p + NN, NN * sizeof(double));
    return gp_quad(x, y, NN, p[2 * NN], p[2 * NN + 1]);
}
static void grad(const double *p, double *g)
{
    double x[NN + 1] = {0}, y[NN + 1] = {0}, dx[NN + 1] = {0}, dy[NN + 1] = {0};
    memcpy(x + 1, p, NN * sizeof(double)); memcpy(y + 1, p + NN, NN * sizeof(double));
    grad_gp_quad(x, dx, y, dy, NN, p[2 * NN], &g[2 * NN], p[2 * NN + 1], &g[2 * NN + 1], 1.0);
    memcpy(g, dx + 1, NN * sizeof(double)); memcpy(g + NN, dy + 1, NN * sizeof(double));
}
#define HARNESS_MAIN
#include "harness.h"
