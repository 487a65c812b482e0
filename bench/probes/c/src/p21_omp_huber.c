/* Robust (Huber) linear-fit loss over a large sample, OpenMP reduction. */
#include <math.h>

double huber_loss(int n, const double *restrict x, const double *restrict y,
                  double a, double b, double delta)
{
    double s = 0.0;
    int i;
#pragma omp parallel for reduction(+:s) schedule(static)
    for (i = 0; i < n; i++) {
        double r = y[i] - (a * x[i] + b);
        double ar = fabs(r);
        if (ar <= delta)
            s += 0.5 * r * r;
        else
            s += delta * (ar - 0.5 * delta);
    }
    double pen = 0.0;
    double w;
#pragma omp parallel for private(w) reduction(+:pen)
    for (i = 0; i < n; i++) {
        w = exp(-x[i] * x[i]);
        pen += w * (a * a + b * b);
    }
    return s / n + 1e-3 * pen;
}
