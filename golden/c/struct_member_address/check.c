#define NTHETA 7
#include "struct_fd.h"

typedef struct { double x; double v[3]; int id; } Particle;
void kick(Particle *p, const double *f, double dt);
void grad_kick(Particle *p, Particle *d_p, const double *f, double *d_f, double dt);

/* The seeds of what kick writes: p->x and p->v. */
static const double seed[4] = {0.3, -1.1, 0.7, 0.45};

static Particle particle(const double *theta) {
    Particle p = {theta[0], {theta[1], theta[2], theta[3]}, 2};
    return p;
}

static double J(const double *theta) {
    Particle p = particle(theta);
    kick(&p, theta + 4, 0.1);
    return seed[0] * p.x + seed[1] * p.v[0] + seed[2] * p.v[1] + seed[3] * p.v[2];
}

static void G(const double *theta, double *grad) {
    Particle p = particle(theta);
    Particle d_p = {seed[0], {seed[1], seed[2], seed[3]}, 0};
    double d_f[3] = {0.0, 0.0, 0.0};
    grad_kick(&p, &d_p, theta + 4, d_f, 0.1);
    grad[0] = d_p.x;
    for (int c = 0; c < 3; c++) {
        grad[1 + c] = d_p.v[c];
        grad[4 + c] = d_f[c];
    }
}
