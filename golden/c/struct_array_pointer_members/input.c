#include <math.h>

/* A network as numerical C often keeps one: an array of layers, each a struct with pointer
   members (its weights and biases on the heap), its sizes as integers, a number and a fixed
   array. The layers are read as layers[l].b[0], (layers + l)->scale[1], through a pointer to one
   of them (L = &layers[l]), and handed to a helper one at a time (&layers[l]). */
typedef struct {
    int n_in, n_out;
    double *W; /* n_out rows of n_in */
    double *b;
    double alpha;
    double scale[2];
} Layer;

static void dense(const Layer *L, const double *x, double *y)
{
    for (int o = 0; o < L->n_out; o++) {
        double s = L->b[o];
        for (int i = 0; i < L->n_in; i++)
            s += L->W[o * L->n_in + i] * x[i];
        y[o] = L->alpha * tanh(s);
    }
}

double loss(const Layer *layers, int nl, const double *x)
{
    double h[4][8];
    for (int i = 0; i < layers[0].n_in; i++)
        h[0][i] = x[i];
    for (int l = 0; l < nl; l++)
        dense(&layers[l], h[l], h[l + 1]);
    double s = 0.0;
    for (int l = 0; l < nl; l++) {
        const Layer *L = &layers[l];
        s += L->scale[0] * L->W[0] * L->W[0] + (layers + l)->scale[1] * layers[l].b[0];
    }
    for (int o = 0; o < layers[nl - 1].n_out; o++)
        s += h[nl][o] * h[nl][o];
    return s;
}
