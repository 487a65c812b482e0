/* Scalar typedefs in the signature (the gradient keeps them, and its file defines them),
   restrict pointers, a const scalar parameter, a static inline helper, an extern
   prototype that is never called, and a prototype ahead of its definition. */
#include <math.h>

typedef double real;
typedef int index_t;
typedef real weight_t;

extern double unused_elsewhere(double);
static real softplus(real v);

static inline real scaled(const real v, const weight_t w)
{
    return w * v;
}

real penalty(const real *restrict x, real *restrict y, const index_t n, const weight_t w)
{
    real s = 0.0;
    for (index_t i = 0; i < n; i++) {
        y[i] = scaled(x[i], w);
        s += softplus(y[i]);
    }
    return s;
}

static real softplus(real v)
{
    return log1p(exp(v));
}
