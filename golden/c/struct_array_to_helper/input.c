#include <math.h>

/* An array of structs with pointer members passed whole to helpers that index it (a penalty
   over all layers, a forward pass), which hand one struct on (&layers[l]). */
typedef struct {
    int n_in, n_out;
    double *W; /* n_out rows of n_in */
    double *b;
    double alpha;
} Layer;

static double sumsq(const Layer *L)
{
    double s = 0.0;
    for (int k = 0; k < L->n_in * L->n_out; k++)
        s += L->W[k] * L->W[k];
    return s;
}

static double penalty(const Layer *layers, int nl)
{
    double s = 0.0;
    for (int l = 0; l < nl; l++)
        s += layers[l].alpha * sumsq(&layers[l]);
    return s;
}

/* y = tanh(W x + b) of the last layer, after the first: two layers, 2 -> 2 -> 1. */
static double forward(const Layer *layers, const double *x)
{
    double h[2];
    for (int o = 0; o < layers[0].n_out; o++) {
        double s = layers[0].b[o];
        for (int i = 0; i < layers[0].n_in; i++)
            s += layers[0].W[o * layers[0].n_in + i] * x[i];
        h[o] = tanh(s);
    }
    double y = layers[1].b[0];
    for (int i = 0; i < layers[1].n_in; i++)
        y += layers[1].W[i] * h[i];
    return y;
}

double loss(const Layer *layers, int nl, const double *x)
{
    double y = forward(layers, x);
    return y * y + 0.01 * penalty(layers, nl);
}
