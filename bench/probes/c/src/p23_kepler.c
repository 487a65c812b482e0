/* Orbit radii from mean anomalies: Kepler's equation E - e sin E = M solved
 * by Newton iteration to convergence (data-dependent do/while). */
#include <math.h>

#define M_PI_FALLBACK 3.14159265358979323846

static double solve_kepler(double M, double e)
{
    double E = (e < 0.8) ? M : M_PI_FALLBACK;
    double dE;
    int it = 0;
    do {
        dE = (E - e * sin(E) - M) / (1.0 - e * cos(E));
        E -= dE;
        it++;
    } while (fabs(dE) > 1e-14 && it < 50);
    return E;
}

double orbit_radii(int n, const double *M, double e, double a, const double *robs)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double E = solve_kepler(M[i], e);
        double r = a * (1.0 - e * cos(E));
        double d = r - robs[i];
        s += d * d;
    }
    return s;
}
