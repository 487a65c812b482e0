/* A static two-argument helper called from a loop. */
#include <math.h>

static double logistic(double v, double k)
{
    return 1.0 / (1.0 + exp(-k * v));
}

double soft_count(const double *x, const double *k, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += logistic(x[i], k[i]) * x[i];
    }
    return s;
}
