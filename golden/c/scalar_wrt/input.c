/* A double scalar parameter in --wrt: its adjoint goes to double *d_a. */
#include <math.h>

double log_sum_exp(const double *x, double a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += exp(a * x[i]);
    }
    return log(s) / a;
}
