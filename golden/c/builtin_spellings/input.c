/* gcc's and clang's __builtin_ names of math.h functions: the functions themselves. */
#include <math.h>

double builtin_spellings(const double *x, const double *w, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double t = __builtin_sqrt(x[i]) * __builtin_exp(-x[i]) + __builtin_fabs(x[i] - w[i]);
        t += __builtin_pow(w[i], 1.5) + __builtin_fma(x[i], w[i], 1.0) + __builtin_fmax(x[i], w[i]);
        s += t * __builtin_lgamma(w[i]) + __builtin_tanh(x[i]) + __builtin_log1p(w[i]);
    }
    return s;
}
