#define NTHETA 6
#include "struct_fd.h"

double gram_trace(const double *x, int n, int m);
void grad_gram_trace(const double *x, double *d_x, int n, int m, double d_return);

static double J(const double *theta) {
    return gram_trace(theta, 3, 2);
}

static void G(const double *theta, double *grad) {
    for (int k = 0; k < NTHETA; k++)
        grad[k] = 0.0;
    grad_gram_trace(theta, grad, 3, 2, 1.0);
}
