/* VARIANT of p36: a convenience wrapper passes the options as a compound literal.
 * Levenberg-Marquardt-style cost of a robust nonlinear least-squares fit: the
 * data set and the fit options are structs passed by const pointer (ints,
 * flags and pointers beside doubles); the model writes its value through an
 * out-parameter; residuals go to a malloc'd scratch vector; a Gaussian prior
 * on some parameters, Huber or Cauchy loss selected by an option. */
#include <stdlib.h>
#include <math.h>

enum loss_kind { LOSS_L2 = 0, LOSS_HUBER = 1, LOSS_CAUCHY = 2 };

typedef struct {
    enum loss_kind loss;
    double scale;            /* robust scale */
    int nprior;              /* prior on the first nprior parameters */
    const double *prior_mean;
    double prior_weight;
} FitOptions;

typedef struct {
    size_t n;
    const double *t;
    const double *y;
    const double *sigma;
} Dataset;

/* y(t) = A exp(-k t) + B cos(w t + phi) */
static void model(double t, const double *p, double *val)
{
    *val = p[0] * exp(-p[1] * t) + p[2] * cos(p[3] * t + p[4]);
}

static void residuals(const double *p, const Dataset *d, double *r)
{
    for (size_t i = 0; i < d->n; i++) {
        double m;
        model(d->t[i], p, &m);
        r[i] = (m - d->y[i]) / d->sigma[i];
    }
}

static double robust_rho(const FitOptions *opt, double r)
{
    const double c = opt->scale;
    switch (opt->loss) {
    case LOSS_HUBER:
        return fabs(r) <= c ? 0.5 * r * r : c * (fabs(r) - 0.5 * c);
    case LOSS_CAUCHY:
        return 0.5 * c * c * log1p((r / c) * (r / c));
    default:
        return 0.5 * r * r;
    }
}

double lm_cost(const double *p, const Dataset *data, const FitOptions *opt)
{
    double *r = malloc(data->n * sizeof *r);
    residuals(p, data, r);
    double cost = 0.0;
    for (size_t i = 0; i < data->n; ++i)
        cost += robust_rho(opt, r[i]);
    for (int k = 0; k < opt->nprior; ++k) {
        const double dp = p[k] - opt->prior_mean[k];
        cost += 0.5 * opt->prior_weight * dp * dp;
    }
    free(r);
    return cost;
}

/* the defaults most callers use */
double lm_cost_default(const double *p, const Dataset *data)
{
    return lm_cost(p, data, &(FitOptions){.loss = LOSS_HUBER, .scale = 1.345});
}
