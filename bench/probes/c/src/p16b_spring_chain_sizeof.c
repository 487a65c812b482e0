/* VARIANT of p16: sizeof(double) instead of sizeof *f.
 * Chain of masses joined by springs, velocity-Verlet time stepping;
 * objective: squared distance of the final positions from a target. */
#include <math.h>
#include <stdlib.h>

static void spring_forces(int n, const double *x, const double *k, double L0, double *f)
{
    for (int i = 0; i < n; i++) f[i] = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        double ext = (x[i + 1] - x[i]) - L0;
        double fs = k[i] * ext;
        f[i] += fs;
        f[i + 1] -= fs;
    }
}

double chain_loss(int n, double *x, double *v, const double *k, const double *m,
                  double L0, double dt, int nsteps, const double *target)
{
    double *f = calloc(n, sizeof(double));
    spring_forces(n, x, k, L0, f);
    for (int s = 0; s < nsteps; s++) {
        for (int i = 0; i < n; i++) {
            v[i] += 0.5 * dt * f[i] / m[i];
            x[i] += dt * v[i];
        }
        spring_forces(n, x, k, L0, f);
        for (int i = 0; i < n; i++)
            v[i] += 0.5 * dt * f[i] / m[i];
    }
    double loss = 0.0;
    for (int i = 0; i < n; i++) {
        double d = x[i] - target[i];
        loss += d * d;
    }
    free(f);
    return loss;
}
