#define NTHETA 7
#include "struct_fd.h"

typedef struct {
    int id;
    double x, v;
    int kind;
} Body;
double simulate(Body *bs, int n, double dt, int steps);
void grad_simulate(Body *bs, Body *d_bs, int n, double dt, double *d_dt, int steps, double d_return);

static void fill(Body *bs, const double *theta) {
    for (int i = 0; i < 3; i++) {
        bs[i].id = i + 1;
        bs[i].kind = i % 2;
        bs[i].x = theta[2 * i];
        bs[i].v = theta[2 * i + 1];
    }
}

static double J(const double *theta) {
    Body bs[3];
    fill(bs, theta);
    return 0.9 * simulate(bs, 3, 0.1 * theta[6], 4);
}

static void G(const double *theta, double *grad) {
    Body bs[3], d_bs[3] = {{0}};
    fill(bs, theta);
    double d_dt = 0.0;
    grad_simulate(bs, d_bs, 3, 0.1 * theta[6], &d_dt, 4, 0.9);
    for (int i = 0; i < 3; i++) {
        grad[2 * i] = d_bs[i].x;
        grad[2 * i + 1] = d_bs[i].v;
    }
    grad[6] = 0.1 * d_dt;
}
