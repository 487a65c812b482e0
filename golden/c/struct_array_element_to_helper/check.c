/* theta: the data of two vectors (2 numbers each), their s, x[2]. J adds the seeds of the s it
   writes. */
#define NTHETA 8
#include "struct_fd.h"

typedef struct {
    int n;
    double *data;
    double s;
} Vec;
double f(Vec *vs, int m, const double *x);
void grad_f(Vec *vs, Vec *d_vs, int m, const double *x, double *d_x, double d_return);

static const double seed[2] = {0.7, -0.4};

static double J(const double *theta) {
    double data[4];
    for (int k = 0; k < 4; k++)
        data[k] = theta[k];
    Vec vs[2] = {{1, data, theta[4]}, {3, data + 2, theta[5]}};
    double j = 0.6 * f(vs, 2, theta + 6);
    return j + seed[0] * vs[0].s + seed[1] * vs[1].s;
}

static void G(const double *theta, double *grad) {
    double data[4];
    for (int k = 0; k < NTHETA; k++)
        grad[k] = 0.0;
    for (int k = 0; k < 4; k++)
        data[k] = theta[k];
    Vec vs[2] = {{1, data, theta[4]}, {3, data + 2, theta[5]}};
    Vec d_vs[2] = {{0, grad, seed[0]}, {0, grad + 2, seed[1]}};
    grad_f(vs, d_vs, 2, theta + 6, grad + 6, 0.6);
    grad[4] = d_vs[0].s;
    grad[5] = d_vs[1].s;
}
