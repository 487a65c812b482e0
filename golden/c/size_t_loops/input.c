/* size_t and unsigned counters and lengths in loops that the gradient runs forward too (a
   written array), a while loop over a size_t, and an unsigned length that may be zero:
   the gradient compiles without -Wsign-compare warnings and reads the lengths as the
   counts they are. */
#include <stddef.h>

void smooth_inplace(const double *x, double *y, size_t n, unsigned m)
{
    for (size_t i = 0; i < n; i++) {
        y[i] = x[i] * x[i];
    }
    for (unsigned j = 1; j < m; j++) {
        y[j] += 0.5 * y[j - 1] * x[j];
    }
    size_t k = 0;
    while (k < n) {
        y[k] *= 1.5;
        k += 2;
    }
}
