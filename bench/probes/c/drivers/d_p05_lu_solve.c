#include "harness.h"
#define NN 4
double lu_solve(int n, double A[n][n], double b[n], double x[n], double y[n]);
void grad_lu_solve(int n, double A[n][n], double d_A[n][n], double b[n], double d_b[n],
                   double x[n], double d_x[n], double y[n], double d_y[n], double d_return);
static int np(void) { return NN * NN + NN; }
static void init(double *p) { fill(p, np(), -1.0, 1.0); for (int i = 0; i < NN; i++) p[i * NN + i] += 4.0; }
static double eval(const double *p)
{
    double A[NN * NN], b[NN], x[NN], y[NN];
    memcpy(A, p, sizeof A); memcpy(b, p + NN * NN, sizeof b);
    return lu_solve(NN, (double (*)[NN])A, b, x, y);
}
static void grad(const double *p, double *g)
{
    double A[NN * NN], b[NN], x[NN], y[NN], d_x[NN] = {0}, d_y[NN] = {0};
    memcpy(A, p, sizeof A); memcpy(b, p + NN * NN, sizeof b);
    grad_lu_solve(NN, (double (*)[NN])A, (double (*)[NN])g, b, g + NN * NN, x, d_x, y, d_y, 1.0);
}
#define SIDE_EFFECTS
static double side(const double *p)
{
    double A[NN * NN], b[NN], x[NN], y[NN], A2[NN * NN], b2[NN], x2[NN], y2[NN];
    double g[NN * NN + NN] = {0}, d_x[NN] = {0}, d_y[NN] = {0};
    memcpy(A, p, sizeof A); memcpy(b, p + NN * NN, sizeof b);
    memcpy(A2, A, sizeof A); memcpy(b2, b, sizeof b);
    lu_solve(NN, (double (*)[NN])A, b, x, y);
    grad_lu_solve(NN, (double (*)[NN])A2, (double (*)[NN])g, b2, g + NN * NN, x2, d_x, y2, d_y, 1.0);
    return fmax(fmax(maxdiff(A, A2, NN * NN), maxdiff(x, x2, NN)), maxdiff(y, y2, NN));
}
#define HARNESS_MAIN
#include "harness.h"
