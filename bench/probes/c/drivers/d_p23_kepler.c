#include "harness.h"
#define NN 5
double orbit_radii(int n, const double *M, double e, double a, const double *robs);
void grad_orbit_radii(int n, const double *M, double *d_M, double e, double *d_e, double a,
                      double *d_a, const double *robs, double *d_robs, double d_return);
static int np(void) { return 2 * NN + 2; }
static void init(double *p) { fill(p, NN, 0.2, 3.0); p[NN] = 0.3; p[NN + 1] = 1.5; fill(p + NN + 2, NN, 1.0, 2.0); }
static double eval(const double *p) { return orbit_radii(NN, p, p[NN], p[NN + 1], p + NN + 2); }
static void grad(const double *p, double *g) { grad_orbit_radii(NN, p, g, p[NN], &g[NN], p[NN + 1], &g[NN + 1], p + NN + 2, g + NN + 2, 1.0); }
#define HARNESS_MAIN
#include "harness.h"
