#define NTHETA 13
#include "struct_fd.h"

typedef struct {
    int type;
    double pos[2];
    double charge;
    short flags;
} Particle;
double energy(Particle *ps, int n, double scale);
void grad_energy(Particle *ps, Particle *d_ps, int n, double scale, double *d_scale, double d_return);

static void fill(Particle *ps, const double *theta) {
    for (int i = 0; i < 4; i++) {
        ps[i].type = i % 2;
        ps[i].pos[0] = theta[3 * i];
        ps[i].pos[1] = theta[3 * i + 1] + i;
        ps[i].charge = theta[3 * i + 2];
        ps[i].flags = 7;
    }
}

static double J(const double *theta) {
    Particle ps[4];
    fill(ps, theta);
    return 0.8 * energy(ps, 4, theta[12]);
}

static void G(const double *theta, double *grad) {
    Particle ps[4], d_ps[4] = {{0}};
    fill(ps, theta);
    double d_scale = 0.0;
    grad_energy(ps, d_ps, 4, theta[12], &d_scale, 0.8);
    for (int i = 0; i < 4; i++) {
        grad[3 * i] = d_ps[i].pos[0];
        grad[3 * i + 1] = d_ps[i].pos[1];
        grad[3 * i + 2] = d_ps[i].charge;
    }
    grad[12] = d_scale;
}
