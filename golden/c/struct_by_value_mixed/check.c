#define NTHETA 6
#include "struct_fd.h"

typedef struct { double gamma; int m; } Wishart;
double f(const double *x, int n, Wishart w);
void grad_f(const double *x, double *d_x, int n, Wishart w, Wishart *d_w, double d_return);

static double J(const double *theta) {
    Wishart w = {theta[5], 3};
    return 0.7 * f(theta, 5, w);
}

static void G(const double *theta, double *grad) {
    Wishart w = {theta[5], 3};
    Wishart d_w = {0.0, 0};
    for (int k = 0; k < 5; k++)
        grad[k] = 0.0;
    grad_f(theta, grad, 5, w, &d_w, 0.7);
    grad[5] = d_w.gamma;
}
