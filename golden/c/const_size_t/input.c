/* A const input array and a size_t length and counter. */
#include <stddef.h>

double sum_squares(const double *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        s += x[i] * x[i];
    }
    return s;
}
