#include <math.h>

/* An elementwise loop: iteration i reads x[i] and y[i] and writes y[i], so each
   iteration is one thread and every adjoint is the thread's own element. */
void saxpy(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        y[i] = 2.0 * x[i] + sin(y[i]);
    }
}
