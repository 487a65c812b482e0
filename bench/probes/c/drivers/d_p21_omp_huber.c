#include "harness.h"
#define NN 50
double huber_loss(int n, const double *restrict x, const double *restrict y,
                  double a, double b, double delta);
void grad_huber_loss(int n, const double *restrict x, double *restrict d_x,
                     const double *restrict y, double *restrict d_y, double a, double *d_a,
                     double b, double *d_b, double delta, double *d_delta, double d_return);
static int np(void) { return 2 * NN + 3; }
static void init(double *p)
{
    fill(p, NN, -2, 2);
    for (int i = 0; i < NN; i++) p[NN + i] = 0.7 * p[i] + 0.2 + urand(-1.5, 1.5);
    p[2 * NN] = 0.7; p[2 * NN + 1] = 0.2; p[2 * NN + 2] = 0.5;
}
static double eval(const double *p) { return huber_loss(NN, p, p + NN, p[2 * NN], p[2 * NN + 1], p[2 * NN + 2]); }
static void grad(const double *p, double *g)
{
    grad_huber_loss(NN, p, g, p + NN, g + NN, p[2 * NN], &g[2 * NN], p[2 * NN + 1], &g[2 * NN + 1],
                    p[2 * NN + 2], &g[2 * NN + 2], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
