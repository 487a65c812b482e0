/* theta: s->scale, x (4). J = relax + 0.3 * s->scale + 0.7 * s->acc as relax leaves them. */
#define NTHETA 5
#include "struct_fd.h"

typedef struct { int n; double scale; double acc; } Sys;
double relax(Sys *s, const double *x);
void grad_relax(Sys *s, Sys *d_s, const double *x, double *d_x, double d_return);

static double J(const double *theta) {
    Sys s = {4, theta[0], 0.0};
    double f = relax(&s, theta + 1);
    return f + 0.3 * s.scale + 0.7 * s.acc;
}

static void G(const double *theta, double *grad) {
    Sys s = {4, theta[0], 0.0}, d_s = {0, 0.3, 0.7};
    double d_x[4] = {0};
    grad_relax(&s, &d_s, theta + 1, d_x, 1.0);
    grad[0] = d_s.scale;
    for (int k = 0; k < 4; k++)
        grad[1 + k] = d_x[k];
}
