#include "harness.h"
typedef double real;
#define NN 6
real cg_energy(int n, const real *restrict diag, real off, const real *restrict b, int iters);
void grad_cg_energy(int n, const real *restrict diag, real *restrict d_diag, real off, real *d_off,
                    const real *restrict b, real *restrict d_b, int iters, real d_return);
static int np(void) { return 2 * NN + 1; }
static void init(double *p) { fill(p, NN, 3.0, 5.0); p[NN] = -1.0 + urand(-0.2, 0.2); fill(p + NN + 1, NN, -1, 1); }
static double eval(const double *p) { return cg_energy(NN, p, p[NN], p + NN + 1, 4); }
static void grad(const double *p, double *g) { grad_cg_energy(NN, p, g, p[NN], &g[NN], p + NN + 1, g + NN + 1, 4, 1.0); }
#define HARNESS_MAIN
#include "harness.h"
