#include <math.h>

/* Each iteration runs an inner loop that overwrites a scalar: the reverse sweep needs
   every value it had, which each thread keeps on its own tape. */
void iterate(int n, int steps, double r, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double v = x[i];
        for (int k = 0; k < steps; k++) {
            v = r * sin(v) + 0.5 * v;
        }
        y[i] = v;
    }
}
