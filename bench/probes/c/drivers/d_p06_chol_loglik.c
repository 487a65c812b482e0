#include "harness.h"
#define NN 3
double mvn_logpdf(const double *x, const double *mu, const double *S, int n);
void grad_mvn_logpdf(const double *x, double *d_x, const double *mu, double *d_mu, const double *S,
                     double *d_S, int n, double d_return);
static int np(void) { return 2 * NN + NN * NN; }
static void init(double *p)
{
    double B[NN * NN];
    fill(p, 2 * NN, -1.0, 1.0);
    fill(B, NN * NN, -1.0, 1.0);
    for (int i = 0; i < NN; i++)
        for (int j = 0; j < NN; j++) {
            double s = (i == j) ? NN : 0.0;
            for (int k = 0; k < NN; k++) s += B[i * NN + k] * B[j * NN + k];
            p[2 * NN + i * NN + j] = s;
        }
}
static double eval(const double *p) { return mvn_logpdf(p, p + NN, p + 2 * NN, NN); }
static void grad(const double *p, double *g) { grad_mvn_logpdf(p, g, p + NN, g + NN, p + 2 * NN, g + 2 * NN, NN, 1.0); }
#define HARNESS_MAIN
#include "harness.h"
