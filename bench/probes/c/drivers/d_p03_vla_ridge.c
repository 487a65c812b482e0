#include "harness.h"
#define NN 5
#define MM 3
double ridge(int n, int m, const double A[n][m], const double x[m], const double b[n], double lambda);
void grad_ridge(int n, int m, const double A[n][m], double d_A[n][m], const double x[m],
                double d_x[m], const double b[n], double d_b[n], double lambda, double *d_lambda,
                double d_return);
static int np(void) { return NN * MM + MM + NN + 1; }
static void init(double *p) { fill(p, np(), -1.0, 1.0); p[np() - 1] = 0.3; }
static double eval(const double *p)
{
    return ridge(NN, MM, (const double (*)[MM])p, p + NN * MM, p + NN * MM + MM, p[np() - 1]);
}
static void grad(const double *p, double *g)
{
    grad_ridge(NN, MM, (const double (*)[MM])p, (double (*)[MM])g, p + NN * MM, g + NN * MM,
               p + NN * MM + MM, g + NN * MM + MM, p[np() - 1], &g[np() - 1], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
