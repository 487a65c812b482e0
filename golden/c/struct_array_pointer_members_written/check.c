/* theta: the data of two vectors of 3 (6), their s (2), x (2). J adds the seeds of what
   scale_all writes: the data and s of each vector. */
#define NTHETA 10
#include "struct_fd.h"

typedef struct {
    int n;
    double *data;
    double s;
} Vec;
double scale_all(Vec *vs, int m, const double *x);
void grad_scale_all(Vec *vs, Vec *d_vs, int m, const double *x, double *d_x, double d_return);

static const double seed[8] = {0.3, -0.7, 1.1, 0.4, -0.2, 0.9, 0.5, -1.3};

static double J(const double *theta) {
    double data[6];
    for (int k = 0; k < 6; k++)
        data[k] = theta[k];
    Vec vs[2] = {{3, data, theta[6]}, {3, data + 3, theta[7]}};
    double f = scale_all(vs, 2, theta + 8);
    double j = 0.6 * f;
    for (int k = 0; k < 6; k++)
        j += seed[k] * data[k];
    return j + seed[6] * vs[0].s + seed[7] * vs[1].s;
}

static void G(const double *theta, double *grad) {
    double data[6];
    for (int k = 0; k < 6; k++) {
        data[k] = theta[k];
        grad[k] = seed[k];
    }
    grad[8] = grad[9] = 0.0;
    Vec vs[2] = {{3, data, theta[6]}, {3, data + 3, theta[7]}};
    Vec d_vs[2] = {{0, grad, seed[6]}, {0, grad + 3, seed[7]}};
    grad_scale_all(vs, d_vs, 2, theta + 8, grad + 8, 0.6);
    grad[6] = d_vs[0].s;
    grad[7] = d_vs[1].s;
}
