/* 1-D inviscid Burgers equation: finite-volume MUSCL reconstruction with a
 * slope limiter, Rusanov (local Lax-Friedrichs) flux, two ghost cells on each
 * side (zero-gradient outflow), SSP-RK2 in time with a CFL time step.
 * Objective: L2 misfit of the solution at tfinal against a target profile. */
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define NG 2            /* ghost cells per side */
#define USE_MINMOD 1

static inline double minmod(double a, double b)
{
    if (a * b <= 0.0) return 0.0;
    return (fabs(a) < fabs(b)) ? a : b;
}

static inline double vanleer(double a, double b)
{
    double ab = a * b;
    return ab > 0.0 ? 2.0 * ab / (a + b) : 0.0;
}

#if USE_MINMOD
#define limiter minmod
#else
#define limiter vanleer
#endif

static double flux(double u) { return 0.5 * u * u; }

static void fill_ghosts(double *u, int n)
{
    for (int g = 0; g < NG; g++) {
        u[g] = u[NG];
        u[n + NG + g] = u[n + NG - 1];
    }
}

/* dudt[i] for the interior cells i = NG .. n+NG-1 */
static void burgers_rhs(const double *u, int n, double dx, double *dudt)
{
    double fprev = 0.0;
    for (int i = NG - 1; i < n + NG; i++) {
        double sl = limiter(u[i] - u[i - 1], u[i + 1] - u[i]);
        double sr = limiter(u[i + 1] - u[i], u[i + 2] - u[i + 1]);
        double uL = u[i] + 0.5 * sl;
        double uR = u[i + 1] - 0.5 * sr;
        double a = fmax(fabs(uL), fabs(uR));
        double F = 0.5 * (flux(uL) + flux(uR)) - 0.5 * a * (uR - uL);
        if (i >= NG)
            dudt[i] = -(F - fprev) / dx;
        fprev = F;
    }
}

double burgers_misfit(int n, const double *u0, double dx, double tfinal, double cfl,
                      const double *target)
{
    int len = n + 2 * NG;
    double *u = malloc(len * sizeof(double));
    double *u1 = malloc(len * sizeof(double));
    double *L = calloc(len, sizeof(double));
    memcpy(u + NG, u0, n * sizeof(double));
    double t = 0.0;
    while (t < tfinal) {
        double umax = 0.0;
        for (int i = NG; i < n + NG; i++)
            umax = fmax(umax, fabs(u[i]));
        double dt = cfl * dx / umax;
        if (t + dt > tfinal) dt = tfinal - t;
        /* stage 1 */
        fill_ghosts(u, n);
        burgers_rhs(u, n, dx, L);
        for (int i = NG; i < n + NG; i++)
            u1[i] = u[i] + dt * L[i];
        /* stage 2 */
        fill_ghosts(u1, n);
        burgers_rhs(u1, n, dx, L);
        for (int i = NG; i < n + NG; i++)
            u[i] = 0.5 * (u[i] + u1[i] + dt * L[i]);
        t += dt;
    }
    double J = 0.0;
    for (int i = 0; i < n; i++) {
        double e = u[i + NG] - target[i];
        J += e * e * dx;
    }
    free(u);
    free(u1);
    free(L);
    return 0.5 * J;
}
