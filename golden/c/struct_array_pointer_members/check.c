/* theta: for each of the three layers its W, b, alpha and scale[2]; then x[3]. */
#define NTHETA 58
#include "struct_fd.h"

typedef struct {
    int n_in, n_out;
    double *W;
    double *b;
    double alpha;
    double scale[2];
} Layer;
double loss(const Layer *layers, int nl, const double *x);
void grad_loss(const Layer *layers, Layer *d_layers, int nl, const double *x, double *d_x, double d_return);

static const int IN[3] = {3, 4, 4}, OUT[3] = {4, 4, 2};

/* The layers over the numbers of v (theta, or the gradient laid out as theta): W and b point
   into v, alpha and scale are copied from it; returns where x starts. */
static int layers_over(double *v, Layer *layers) {
    int k = 0;
    for (int l = 0; l < 3; l++) {
        layers[l].n_in = IN[l];
        layers[l].n_out = OUT[l];
        layers[l].W = v + k;
        k += IN[l] * OUT[l];
        layers[l].b = v + k;
        k += OUT[l];
        layers[l].alpha = v[k];
        layers[l].scale[0] = v[k + 1];
        layers[l].scale[1] = v[k + 2];
        k += 3;
    }
    return k;
}

static double J(const double *theta) {
    double v[NTHETA];
    Layer layers[3];
    for (int k = 0; k < NTHETA; k++)
        v[k] = theta[k];
    int x = layers_over(v, layers);
    return 0.6 * loss(layers, 3, v + x);
}

static void G(const double *theta, double *grad) {
    double v[NTHETA];
    Layer layers[3], d_layers[3];
    for (int k = 0; k < NTHETA; k++) {
        v[k] = theta[k];
        grad[k] = 0.0;
    }
    int x = layers_over(v, layers);
    layers_over(grad, d_layers); /* d_layers[l].W, .b point at zeroed adjoints; alpha, scale are 0 */
    grad_loss(layers, d_layers, 3, v + x, grad + x, 0.6);
    for (int l = 0, k = 0; l < 3; l++) {
        k += IN[l] * OUT[l] + OUT[l];
        grad[k] = d_layers[l].alpha;
        grad[k + 1] = d_layers[l].scale[0];
        grad[k + 2] = d_layers[l].scale[1];
        k += 3;
    }
}
