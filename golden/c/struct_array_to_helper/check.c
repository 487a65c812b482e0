/* two layers, 2 -> 2 -> 1: W (4 + 2), b (2 + 1), alpha (2); then x[2]. */
#define NTHETA 13
#include "struct_fd.h"

typedef struct {
    int n_in, n_out;
    double *W;
    double *b;
    double alpha;
} Layer;
double loss(const Layer *layers, int nl, const double *x);
void grad_loss(const Layer *layers, Layer *d_layers, int nl, const double *x, double *d_x, double d_return);

/* The layers over the numbers of v (theta, or the gradient laid out as theta); returns where x starts. */
static int over(double *v, Layer *L) {
    L[0].n_in = 2;
    L[0].n_out = 2;
    L[0].W = v;
    L[0].b = v + 4;
    L[0].alpha = v[6];
    L[1].n_in = 2;
    L[1].n_out = 1;
    L[1].W = v + 7;
    L[1].b = v + 9;
    L[1].alpha = v[10];
    return 11;
}

static double J(const double *theta) {
    double v[NTHETA];
    Layer L[2];
    for (int k = 0; k < NTHETA; k++)
        v[k] = theta[k];
    int x = over(v, L);
    return 0.9 * loss(L, 2, v + x);
}

static void G(const double *theta, double *grad) {
    double v[NTHETA];
    Layer L[2], D[2];
    for (int k = 0; k < NTHETA; k++) {
        v[k] = theta[k];
        grad[k] = 0.0;
    }
    int x = over(v, L);
    over(grad, D); /* D[l].W, .b point at zeroed adjoints; alpha is 0 */
    grad_loss(L, D, 2, v + x, grad + x, 0.9);
    grad[6] = D[0].alpha;
    grad[10] = D[1].alpha;
}
