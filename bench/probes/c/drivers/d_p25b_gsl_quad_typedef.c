#include "harness.h"
double moment_misfit(double mu, double sigma, double m1, double m2);
void grad_moment_misfit(double mu, double *d_mu, double sigma, double *d_sigma, double m1,
                        double *d_m1, double m2, double *d_m2, double d_return);
static int np(void) { return 4; }
static void init(double *p) { p[0] = 0.7; p[1] = 1.3; p[2] = 0.5; p[3] = 2.0; }
static double eval(const double *p) { return moment_misfit(p[0], p[1], p[2], p[3]); }
static void grad(const double *p, double *g) { grad_moment_misfit(p[0], &g[0], p[1], &g[1], p[2], &g[2], p[3], &g[3], 1.0); }
#define HARNESS_MAIN
#include "harness.h"
