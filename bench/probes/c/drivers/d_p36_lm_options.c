#include "harness.h"
#include <stddef.h>
enum loss_kind { LOSS_L2 = 0, LOSS_HUBER = 1, LOSS_CAUCHY = 2 };
typedef struct {
    enum loss_kind loss;
    double scale;
    int nprior;
    const double *prior_mean;
    double prior_weight;
} FitOptions;
typedef struct {
    size_t n;
    const double *t;
    const double *y;
    const double *sigma;
} Dataset;
double lm_cost(const double *p, const Dataset *data, const FitOptions *opt);
void grad_lm_cost(const double *p, double *d_p, const Dataset *data, const FitOptions *opt,
                  double d_return);
#define NPTS 30
static double T[NPTS], Y[NPTS], SIG[NPTS];
static const double PMEAN[2] = {1.8, 0.7};
static int np(void) { return 5; }
static void init(double *p)
{
    p[0] = 2.0; p[1] = 0.6; p[2] = 0.5; p[3] = 3.1; p[4] = 0.3;
    for (int i = 0; i < NPTS; i++) {
        T[i] = 0.1 * i;
        Y[i] = 2.1 * exp(-0.55 * T[i]) + 0.45 * cos(3.0 * T[i] + 0.25) + urand(-0.05, 0.05);
        SIG[i] = 0.05 + 0.02 * (i % 3);
    }
    Y[7] += 0.9;  /* an outlier: a Huber residual in the linear part */
}
static double eval(const double *p)
{
    Dataset d = {NPTS, T, Y, SIG};
    return lm_cost(p, &d, &(FitOptions){.loss = LOSS_HUBER, .scale = 1.345, .nprior = 2,
                                        .prior_mean = PMEAN, .prior_weight = 4.0})
         + lm_cost(p, &d, &(FitOptions){.loss = LOSS_CAUCHY, .scale = 2.0});
}
static void grad(const double *p, double *g)
{
    Dataset d = {NPTS, T, Y, SIG};
    grad_lm_cost(p, g, &d, &(FitOptions){.loss = LOSS_HUBER, .scale = 1.345, .nprior = 2,
                                         .prior_mean = PMEAN, .prior_weight = 4.0}, 1.0);
    grad_lm_cost(p, g, &d, &(FitOptions){.loss = LOSS_CAUCHY, .scale = 2.0}, 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
