/* Loops counting an unsigned index down to zero, as code over size_t writes them: the test
   (i > 0, j != 0) keeps every decrement above zero, so nothing wraps. */
#include <stddef.h>
double f(const double *x, size_t n)
{
    double s = 0.0, c = 1.0;
    for (size_t i = n; i > 0; i--) {
        s += c * x[i - 1];
        c *= 0.5;
    }
    for (size_t j = n; j != 0; j -= 1)
        s += x[j - 1] * x[j - 1];
    return s;
}
