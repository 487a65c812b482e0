#include "harness.h"
typedef struct { double x, v; } particle;
typedef struct { double k, beta, mass; } fpu_params;
double fpu_objective(int n, const particle *init, fpu_params prm, double dt, int nsteps,
                     const double *xtarget, double wdrift);
void grad_fpu_objective(int n, const particle *init, particle *d_init, fpu_params prm,
                        fpu_params *d_prm, double dt, double *d_dt, int nsteps,
                        const double *xtarget, double *d_xtarget, double wdrift, double d_return);
#define N 8
#define NST 25
/* p: init (2N), k, beta, mass, dt, xtarget (N) */
static int np(void) { return 2 * N + 4 + N; }
static void init(double *p)
{
    for (int i = 0; i < N; i++) {
        p[2 * i] = 0.3 * sin(3.14159 * (i + 1) / (N + 1)) + urand(-0.05, 0.05);
        p[2 * i + 1] = urand(-0.2, 0.2);
    }
    p[2 * N] = 1.0; p[2 * N + 1] = 0.7; p[2 * N + 2] = 1.3; p[2 * N + 3] = 0.05;
    fill(p + 2 * N + 4, N, -0.3, 0.3);
}
static double eval(const double *p)
{
    fpu_params prm = {p[2 * N], p[2 * N + 1], p[2 * N + 2]};
    return fpu_objective(N, (const particle *)p, prm, p[2 * N + 3], NST, p + 2 * N + 4, 0.01);
}
static void grad(const double *p, double *g)
{
    fpu_params prm = {p[2 * N], p[2 * N + 1], p[2 * N + 2]}, dprm = {0, 0, 0};
    grad_fpu_objective(N, (const particle *)p, (particle *)g, prm, &dprm, p[2 * N + 3],
                       &g[2 * N + 3], NST, p + 2 * N + 4, g + 2 * N + 4, 0.01, 1.0);
    g[2 * N] = dprm.k; g[2 * N + 1] = dprm.beta; g[2 * N + 2] = dprm.mass;
}
#define HARNESS_MAIN
#include "harness.h"
