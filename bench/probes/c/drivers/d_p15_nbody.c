#include "harness.h"
struct planet { double x, y, z; double vx, vy, vz; double mass; };
#define NB 3
double nbody_run(int nbodies, struct planet *bodies, int nsteps, double dt);
void grad_nbody_run(int nbodies, struct planet *bodies, struct planet *d_bodies, int nsteps,
                    double dt, double *d_dt, double d_return);
static int np(void) { return 7 * NB + 1; }
static void init(double *p)
{
    for (int i = 0; i < NB; i++) {
        double *b = p + 7 * i;
        b[0] = 3.0 * i + urand(-0.3, 0.3); b[1] = urand(-1, 1); b[2] = urand(-1, 1);
        fill(b + 3, 3, -0.5, 0.5);
        b[6] = urand(0.5, 1.5);
    }
    p[7 * NB] = 0.01;
}
static double eval(const double *p)
{
    struct planet b[NB];
    memcpy(b, p, sizeof b);
    return nbody_run(NB, b, 5, p[7 * NB]);
}
static void grad(const double *p, double *g)
{
    struct planet b[NB], db[NB];
    memcpy(b, p, sizeof b);
    memset(db, 0, sizeof db);
    grad_nbody_run(NB, b, db, 5, p[7 * NB], &g[7 * NB], 1.0);
    memcpy(g, db, sizeof db);
}
#define SIDE_EFFECTS
static double side(const double *p)
{
    struct planet b[NB], b2[NB], db[NB];
    double ddt = 0.0;
    memcpy(b, p, sizeof b); memcpy(b2, p, sizeof b); memset(db, 0, sizeof db);
    nbody_run(NB, b, 5, p[7 * NB]);
    grad_nbody_run(NB, b2, db, 5, p[7 * NB], &ddt, 1.0);
    return maxdiff((double *)b, (double *)b2, 7 * NB);
}
#define HARNESS_MAIN
#include "harness.h"
