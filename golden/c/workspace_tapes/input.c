#include <math.h>

/* An explicit stepper, whose gradient tapes each step's state, then a sum over a while
 * loop whose trip count only the data say, whose tape grows: with --workspace, both tapes
 * live in the caller's workspace and are kept from one call to the next. */
double f(double *u, const double *k, int n, int steps)
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++) {
            u[i] = u[i] + 0.1 * k[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1]) * u[i];
        }
    }
    double s = 0.0;
    int j = 0;
    while (j < n && k[j] > 0.0) {
        s += sin(u[j]) * u[j];
        j++;
    }
    return s;
}
