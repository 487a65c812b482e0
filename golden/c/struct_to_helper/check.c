/* theta: A (2 x 3, row-major), the steps (2 matrices 3 x 3), w.gamma. */
#define NTHETA (6 + 18 + 1)
#include "struct_fd.h"

typedef struct { double gamma; int m; } Wishart;
typedef struct { int rows, cols; double *data; } Matrix;
double chain(const Matrix *A, const double *steps, int nsteps, Wishart w);
void grad_chain(const Matrix *A, Matrix *d_A, const double *steps, double *d_steps, int nsteps,
                Wishart w, Wishart *d_w, double d_return);

static double J(const double *theta) {
    double a[6];
    for (int k = 0; k < 6; k++)
        a[k] = theta[k];
    Matrix A = {2, 3, a};
    Wishart w = {theta[24], 3};
    return chain(&A, theta + 6, 2, w);
}

static void G(const double *theta, double *grad) {
    double a[6], d_a[6] = {0};
    for (int k = 0; k < 6; k++)
        a[k] = theta[k];
    Matrix A = {2, 3, a}, d_A = {2, 3, d_a};
    Wishart w = {theta[24], 3}, d_w = {0.0, 0};
    double d_steps[18] = {0};
    grad_chain(&A, &d_A, theta + 6, d_steps, 2, w, &d_w, 1.0);
    for (int k = 0; k < 6; k++)
        grad[k] = d_a[k];
    for (int k = 0; k < 18; k++)
        grad[6 + k] = d_steps[k];
    grad[24] = d_w.gamma;
}
