/*
 * A stacked LSTM run over a short sequence with a squared-error loss, written as such code
 * usually is: one cell function that updates its layer's state in place, scratch for the gates,
 * and a pointer to the current layer's input that is rebound to the layer's output.
 *
 * Sizes: steps T, layers L, width h (input and hidden). Layer l's weights are
 * W[l][4h][2h] (row-major; gate g, unit j is row g*h + j; the first h columns multiply the
 * layer's input, the next h its previous hidden state) and its biases b[l][4h].
 *   i = sigmoid(.), f = sigmoid(.), o = sigmoid(.), g = tanh(.)
 *   c = f * c + i * g,   h = o * tanh(c)
 * Inputs x[T][h], initial states h0[L][h], c0[L][h], targets y[T][h];
 * loss = sum_t ||h_t - y_t||^2 over the top layer's h_t.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double sigmoid(double a)
{
    return 1.0 / (1.0 + exp(-a));
}

/* One step of one layer: hidden and cell are updated in place; gates is scratch of 4 h. */
static void lstm_cell(int h, const double *W, const double *b, const double *input, double *hidden,
                      double *cell, double *gates)
{
    for (int r = 0; r < 4 * h; r++) {
        double a = b[r];
        for (int q = 0; q < h; q++)
            a += W[r * 2 * h + q] * input[q];
        for (int q = 0; q < h; q++)
            a += W[r * 2 * h + h + q] * hidden[q];
        gates[r] = a;
    }
    for (int j = 0; j < h; j++) {
        double ig = sigmoid(gates[j]);
        double fg = sigmoid(gates[h + j]);
        double og = sigmoid(gates[2 * h + j]);
        double cg = tanh(gates[3 * h + j]);
        cell[j] = fg * cell[j] + ig * cg;
        hidden[j] = og * tanh(cell[j]);
    }
}

double lstm_objective(int steps, int layers, int h, const double *W, const double *b, const double *x,
                      const double *h0, const double *c0, const double *y)
{
    double *hidden = malloc(layers * h * sizeof(double));
    double *cell = malloc(layers * h * sizeof(double));
    double *gates = malloc(4 * h * sizeof(double));
    memcpy(hidden, h0, layers * h * sizeof(double));
    memcpy(cell, c0, layers * h * sizeof(double));

    double loss = 0.0;
    for (int t = 0; t < steps; t++) {
        const double *input = &x[t * h];
        for (int l = 0; l < layers; l++) {
            lstm_cell(h, &W[l * 8 * h * h], &b[l * 4 * h], input, &hidden[l * h], &cell[l * h], gates);
            input = &hidden[l * h]; /* the next layer reads this one's output */
        }
        for (int j = 0; j < h; j++) {
            double e = input[j] - y[t * h + j];
            loss += e * e;
        }
    }

    free(gates);
    free(cell);
    free(hidden);
    return loss;
}
