#include "harness.h"
#define T 12
double kalman_loglik(int T_, const double y[][2], const double theta[4], double q, double r,
                     const double x0[2]);
void grad_kalman_loglik(int T_, const double y[][2], double d_y[][2], const double theta[4],
                        double d_theta[4], double q, double *d_q, double r, double *d_r,
                        const double x0[2], double d_x0[2], double d_return);
#define OT (2 * T)
static int np(void) { return 2 * T + 4 + 2 + 2; }
static void init(double *p)
{
    p[OT] = 0.9; p[OT + 1] = 0.1; p[OT + 2] = -0.05; p[OT + 3] = 0.8;
    p[OT + 4] = 0.3; p[OT + 5] = 0.5;
    p[OT + 6] = 1.0; p[OT + 7] = -0.5;
    double a = 1.0, b = -0.5;
    for (int t = 0; t < T; t++) {
        double na = 0.9 * a + 0.1 * b, nb = -0.05 * a + 0.8 * b;
        a = na + urand(-0.5, 0.5); b = nb + urand(-0.5, 0.5);
        p[2 * t] = a + urand(-0.7, 0.7);
        p[2 * t + 1] = b + urand(-0.7, 0.7);
    }
}
static double eval(const double *p)
{
    return kalman_loglik(T, (const double (*)[2])p, p + OT, p[OT + 4], p[OT + 5], p + OT + 6);
}
static void grad(const double *p, double *g)
{
    grad_kalman_loglik(T, (const double (*)[2])p, (double (*)[2])g, p + OT, g + OT, p[OT + 4],
                       &g[OT + 4], p[OT + 5], &g[OT + 5], p + OT + 6, g + OT + 6, 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
