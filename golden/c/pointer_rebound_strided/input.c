#include <math.h>

/* Layers stacked in one state block, walked as ADBench's LSTM walks them: the counter steps by
 * a size that is not a constant (i += 2 * b), each layer's hidden and cell rows are views
 * into the block (&s[i], &s[i + b]), and the input pointer is rebound from the caller's
 * buffer to the previous layer's hidden row. No extent is declared: s2sad bounds s by the
 * last value the counter reaches, 2 * (l - 1) * b. */
static void layer(int hsize, const double *w, double *hidden, double *cell, const double *input)
{
    for (int i = 0; i < hsize; i++) {
        cell[i] = cell[i] * tanh(w[i] * input[i]) + hidden[i];
        hidden[i] = sin(cell[i]) * w[hsize + i];
    }
}

double stack(int l, int b, const double *w, double *s, const double *x, double *x2)
{
    int i;
    for (i = 0; i < b; i++)
        x2[i] = 2.0 * x[i];
    const double *xp = x2;
    for (i = 0; i <= 2 * l * b - 1; i += 2 * b) {
        layer(b, &w[i], &s[i], &s[i + b], xp);
        xp = &s[i];
    }
    double r = 0.0;
    for (i = 0; i < b; i++)
        r += xp[i] * xp[i];
    return r;
}
