/* theta: M's data (2 x 3), M->s, x[2]. J adds the seeds of what f writes: M->s (and, f writing
   none of it, M's data, whose seeds pass through). */
#define NTHETA 9
#include "struct_fd.h"

typedef struct {
    int rows, cols;
    double *data;
    double s;
} Matrix;
double f(Matrix *M, const double *x);
void grad_f(Matrix *M, Matrix *d_M, const double *x, double *d_x, double d_return);

static const double seed[7] = {0.3, -0.5, 0.8, 1.1, -0.2, 0.4, 0.6};

static double J(const double *theta) {
    double data[6];
    for (int k = 0; k < 6; k++)
        data[k] = theta[k];
    Matrix M = {2, 3, data, theta[6]};
    double j = 0.7 * f(&M, theta + 7);
    for (int k = 0; k < 6; k++)
        j += seed[k] * data[k];
    return j + seed[6] * M.s;
}

static void G(const double *theta, double *grad) {
    double data[6];
    for (int k = 0; k < 6; k++) {
        data[k] = theta[k];
        grad[k] = seed[k];
    }
    grad[7] = grad[8] = 0.0;
    Matrix M = {2, 3, data, theta[6]}, d_M = {0, 0, grad, seed[6]};
    grad_f(&M, &d_M, theta + 7, grad + 7, 0.7);
    grad[6] = d_M.s;
}
