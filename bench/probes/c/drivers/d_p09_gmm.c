#include "harness.h"
typedef struct { double gamma; int m; } Wishart;
#define D 3
#define K 2
#define NX 4
#define ICF (D * (D + 1) / 2)
void gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                   const double *icf, const double *x, Wishart wishart, double *err);
void grad_gmm_objective(int d, int k, int n, const double *alphas, double *d_alphas,
                        const double *means, double *d_means, const double *icf, double *d_icf,
                        const double *x, double *d_x, Wishart wishart, double *err,
                        double *d_err);
#define OM K
#define OI (OM + K * D)
#define OX (OI + K * ICF)
static int np(void) { return OX + NX * D; }
static void init(double *p) { fill(p, np(), -1.0, 1.0); }
static const Wishart W = {1.3, 1};
static double eval(const double *p)
{
    double err;
    gmm_objective(D, K, NX, p, p + OM, p + OI, p + OX, W, &err);
    return err;
}
static void grad(const double *p, double *g)
{
    double err, d_err = 1.0;
    grad_gmm_objective(D, K, NX, p, g, p + OM, g + OM, p + OI, g + OI, p + OX, g + OX, W, &err, &d_err);
}
#define HARNESS_MAIN
#include "harness.h"
