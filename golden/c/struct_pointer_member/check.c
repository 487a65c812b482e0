#define NTHETA 9
#include "struct_fd.h"

typedef struct { int rows, cols; double *data; } Matrix;
double frob(const Matrix *M, const double *w);
void grad_frob(const Matrix *M, Matrix *d_M, const double *w, double *d_w, double d_return);

static double J(const double *theta) {
    double data[6];
    for (int k = 0; k < 6; k++)
        data[k] = theta[k];
    Matrix M = {2, 3, data};
    return 1.3 * frob(&M, theta + 6);
}

static void G(const double *theta, double *grad) {
    double data[6];
    for (int k = 0; k < 6; k++)
        data[k] = theta[k];
    for (int k = 0; k < NTHETA; k++)
        grad[k] = 0.0;
    Matrix M = {2, 3, data};
    Matrix d_M = {0, 0, grad};
    grad_frob(&M, &d_M, theta + 6, grad + 6, 1.3);
}
