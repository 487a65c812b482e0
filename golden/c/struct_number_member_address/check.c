#define NTHETA 8
#include "struct_fd.h"

typedef struct { double gamma; int m; } Wishart;
typedef struct { int n; double scale; double *data; } Series;
double objective(const Series *S, Wishart w, const double *x, int n);
void grad_objective(const Series *S, Series *d_S, Wishart w, Wishart *d_w, const double *x, double *d_x, int n,
                    double d_return);

/* theta: S->data[0..2], S->scale, w.gamma, x[0..2] */
static double J(const double *theta) {
    double data[3] = {theta[0], theta[1], theta[2]};
    Series S = {3, theta[3], data};
    Wishart w = {theta[4], 3};
    return 0.9 * objective(&S, w, theta + 5, 3);
}

static void G(const double *theta, double *grad) {
    double data[3] = {theta[0], theta[1], theta[2]};
    Series S = {3, theta[3], data};
    Wishart w = {theta[4], 3};
    for (int k = 0; k < NTHETA; k++)
        grad[k] = 0.0;
    Series d_S = {0, 0.0, grad};
    Wishart d_w = {0.0, 0};
    grad_objective(&S, &d_S, w, &d_w, theta + 5, grad + 5, 3, 0.9);
    grad[3] = d_S.scale;
    grad[4] = d_w.gamma;
}
