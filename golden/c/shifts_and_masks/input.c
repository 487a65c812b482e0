#include <math.h>

/* Integer shifts and masks by constants, as C code indexes with them: a halving stride
   (s >>= 1), a doubled index (s << 1), and parity and low bits (i & 1, i & 3). They are
   integer arithmetic (x / 2^k floored, x * 2^k, x mod 2^k), so the gradient visits the
   elements the primal does. */
double stride_sums(const double *x, int n)
{
    double acc = 0.0;
    for (int s = n >> 1; s > 0; s >>= 1) {
        acc += x[s] * x[(s << 1) - 1];
    }
    for (int i = 0; i < n; i++) {
        if ((i & 1) == 0) {
            acc += sin(x[i]);
        } else {
            acc -= x[i] * x[i & 3];
        }
    }
    return acc;
}
