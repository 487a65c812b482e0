#include "harness.h"
#define NN 5
#define TS 2
#define SZ (NN * NN * NN)
void heat_energy(int tsteps, int n, double A[n][n][n], double B[n][n][n], double *out);
void grad_heat_energy(int tsteps, int n, double A[n][n][n], double d_A[n][n][n], double B[n][n][n],
                      double d_B[n][n][n], double *out, double *d_out);
static int np(void) { return 2 * SZ; }
static void init(double *p) { fill(p, np(), -1.0, 1.0); }
static double eval(const double *p)
{
    double A[SZ], B[SZ], out;
    memcpy(A, p, sizeof A); memcpy(B, p + SZ, sizeof B);
    heat_energy(TS, NN, (double (*)[NN][NN])A, (double (*)[NN][NN])B, &out);
    return out;
}
static void grad(const double *p, double *g)
{
    double A[SZ], B[SZ], out, d_out = 1.0;
    memcpy(A, p, sizeof A); memcpy(B, p + SZ, sizeof B);
    grad_heat_energy(TS, NN, (double (*)[NN][NN])A, (double (*)[NN][NN])g,
                     (double (*)[NN][NN])B, (double (*)[NN][NN])(g + SZ), &out, &d_out);
}
#define HARNESS_MAIN
#include "harness.h"
