#include "harness.h"
typedef struct { int rows, cols; double *data; } Matrix;
#define NR 3
#define RK 2
#define MC 4
double factor_loss(const Matrix *X, const Matrix *U, const Matrix *V, double lambda);
void grad_factor_loss(const Matrix *X, Matrix *d_X, const Matrix *U, Matrix *d_U, const Matrix *V,
                      Matrix *d_V, double lambda, double *d_lambda, double d_return);
#define OU (NR * MC)
#define OV (OU + NR * RK)
#define OL (OV + RK * MC)
static int np(void) { return OL + 1; }
static void init(double *p) { fill(p, np(), -1.0, 1.0); p[OL] = 0.2; }
static double eval(const double *p)
{
    Matrix X = {NR, MC, (double *)p}, U = {NR, RK, (double *)p + OU}, V = {RK, MC, (double *)p + OV};
    return factor_loss(&X, &U, &V, p[OL]);
}
static void grad(const double *p, double *g)
{
    Matrix X = {NR, MC, (double *)p}, U = {NR, RK, (double *)p + OU}, V = {RK, MC, (double *)p + OV};
    Matrix dX = {NR, MC, g}, dU = {NR, RK, g + OU}, dV = {RK, MC, g + OV};
    grad_factor_loss(&X, &dX, &U, &dU, &V, &dV, p[OL], &g[OL], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
