/* Composite Simpson quadrature over a GSL-style integrand
 * double f(double x, void *params); moments of a Gaussian density. */
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef double (*integrand_fn)(double x, void *params);

struct gauss_params {
    double mu;
    double sigma;
    int power;
};

static double gauss_moment(double x, void *params)
{
    struct gauss_params *p = (struct gauss_params *)params;
    double z = (x - p->mu) / p->sigma;
    double dens = exp(-0.5 * z * z) / (p->sigma * sqrt(2.0 * M_PI));
    return pow(x, p->power) * dens;
}

static double simpson(integrand_fn f, void *params, double a, double b, int n)
{
    double h = (b - a) / n;
    double s = f(a, params) + f(b, params);
    for (int i = 1; i < n; i++) {
        double x = a + i * h;
        s += (i % 2 ? 4.0 : 2.0) * f(x, params);
    }
    return s * h / 3.0;
}

double moment_misfit(double mu, double sigma, double m1, double m2)
{
    struct gauss_params p = { mu, sigma, 1 };
    double lo = mu - 8.0 * sigma, hi = mu + 8.0 * sigma;
    double e1 = simpson(gauss_moment, &p, lo, hi, 200) - m1;
    p.power = 2;
    double e2 = simpson(gauss_moment, &p, lo, hi, 200) - m2;
    return e1 * e1 + e2 * e2;
}
