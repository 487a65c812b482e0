/* Fermi-Pasta-Ulam-Tsingou chain (beta model) with fixed walls, integrated
 * by velocity Verlet. Particles are an array of {x, v} structs; the force
 * routine fills an out-array. Objective: misfit of the final displacements
 * plus a penalty on the energy drift of the integrator. */
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef struct {
    double x;   /* displacement from the lattice site */
    double v;
} particle;

typedef struct {
    double k, beta, mass;
} fpu_params;

static inline double spring_force(double d, const fpu_params *pp)
{
    return pp->k * d + pp->beta * d * d * d;
}

static inline double spring_energy(double d, const fpu_params *pp)
{
    return 0.5 * pp->k * d * d + 0.25 * pp->beta * d * d * d * d;
}

/* f[i] = force on particle i; walls at both ends (x = 0 beyond the chain) */
static void compute_forces(const particle *p, int n, const fpu_params *pp, double *f)
{
    for (int i = 0; i < n; i++) {
        double left = (i > 0) ? p[i - 1].x : 0.0;
        double right = (i < n - 1) ? p[i + 1].x : 0.0;
        f[i] = spring_force(right - p[i].x, pp) - spring_force(p[i].x - left, pp);
    }
}

static double total_energy(const particle *p, int n, const fpu_params *pp)
{
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        const particle *a = &p[i];
        e += 0.5 * pp->mass * a->v * a->v;
        double left = (i > 0) ? p[i - 1].x : 0.0;
        e += spring_energy(a->x - left, pp);
    }
    e += spring_energy(-p[n - 1].x, pp);
    return e;
}

double fpu_objective(int n, const particle *init, fpu_params prm, double dt, int nsteps,
                     const double *xtarget, double wdrift)
{
    particle *p = malloc(n * sizeof *p);
    double *f = malloc(n * sizeof *f);
    memcpy(p, init, n * sizeof *p);
    const double e0 = total_energy(p, n, &prm);
    const double hdt_m = 0.5 * dt / prm.mass;

    compute_forces(p, n, &prm, f);
    for (int s = 0; s < nsteps; s++) {
        for (int i = 0; i < n; i++) {
            p[i].v += hdt_m * f[i];
            p[i].x += dt * p[i].v;
        }
        compute_forces(p, n, &prm, f);
        for (int i = 0; i < n; i++)
            p[i].v += hdt_m * f[i];
    }
    const double e1 = total_energy(p, n, &prm);

    double J = 0.0;
    for (int i = 0; i < n; i++) {
        double d = p[i].x - xtarget[i];
        J += d * d;
    }
    J += wdrift * (e1 - e0) * (e1 - e0) / (dt * dt * dt * dt);
    free(p);
    free(f);
    return J;
}
