#include <math.h>

/* Layers of a recurrence through two buffers: the input and output pointers are rebound to
 * different arrays from one layer to the next (x, then h1 and h2 in turn). */
double pingpong(const double *x, double *h1, double *h2, int n, int layers)
{
    const double *in = x;
    double *out = h1;
    for (int l = 0; l < layers; l++) {
        for (int i = 0; i < n; i++)
            out[i] = tanh(in[i] + 0.5 * in[(i + 1) % n]);
        in = out;
        out = (l % 2 == 0) ? h2 : h1;
    }
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += in[i] * in[i];
    return s;
}
