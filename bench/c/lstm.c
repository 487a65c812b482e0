/*
 * An LSTM run over a short sequence with a squared-error loss.
 *
 * Sizes: steps T, hidden size h, input size in. Gate g (0 input, 1 forget, 2 output,
 * 3 cell candidate) for unit j uses row g*h + j of W[4h * (in + h)] (row-major: the first
 * in columns multiply x_t, the next h multiply h_{t-1}) and b[g*h + j].
 *   i = sigmoid(.), f = sigmoid(.), o = sigmoid(.), g = tanh(.)
 *   c_t = f * c_{t-1} + i * g,   h_t = o * tanh(c_t)
 * Inputs x[T*in], initial state h0[h], c0[h], targets y[T*h];
 * loss = sum_t ||h_t - y_t||^2. The state is carried in malloc'ed work arrays.
 */
#include <math.h>
#include <stdlib.h>

static double sigmoid(double a)
{
    return 1.0 / (1.0 + exp(-a));
}

/* sum_j w[wo + j] * v[vo + j] for j < n */
static double row_dot(int n, const double *w, int wo, const double *v, int vo)
{
    double s = 0.0;
    for (int j = 0; j < n; j++) {
        s += w[wo + j] * v[vo + j];
    }
    return s;
}

double lstm_objective(int steps, int hsize, int insize, const double *W, const double *b, const double *x,
                      const double *h0, const double *c0, const double *y)
{
    int cols = insize + hsize;
    double *hs = malloc(hsize * sizeof(double));
    double *cs = malloc(hsize * sizeof(double));
    double *z = malloc(4 * hsize * sizeof(double));
    for (int j = 0; j < hsize; j++) {
        hs[j] = h0[j];
        cs[j] = c0[j];
    }

    double loss = 0.0;
    for (int t = 0; t < steps; t++) {
        for (int r = 0; r < 4 * hsize; r++) {
            /* the recurrent part is written out: hs changes every step */
            double a = b[r] + row_dot(insize, W, r * cols, x, t * insize);
            for (int q = 0; q < hsize; q++) {
                a += W[r * cols + insize + q] * hs[q];
            }
            z[r] = a;
        }
        for (int j = 0; j < hsize; j++) {
            double ig = sigmoid(z[j]);
            double fg = sigmoid(z[hsize + j]);
            double og = sigmoid(z[2 * hsize + j]);
            double cg = tanh(z[3 * hsize + j]);
            cs[j] = fg * cs[j] + ig * cg;
            hs[j] = og * tanh(cs[j]);
            double e = hs[j] - y[t * hsize + j];
            loss += e * e;
        }
    }

    free(z);
    free(cs);
    free(hs);
    return loss;
}
