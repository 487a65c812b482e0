/* A fixed number of conjugate-gradient iterations on a symmetric tridiagonal
 * system; typedef'd real, static inline BLAS-1 kernels with restrict. */
#include <stdlib.h>
#include <string.h>

typedef double real;

static inline real dot(int n, const real *restrict a, const real *restrict b)
{
    real s = 0;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

static inline void axpy(int n, real alpha, const real *restrict x, real *restrict y)
{
    for (int i = 0; i < n; ++i) y[i] += alpha * x[i];
}

static inline void tridiag_mv(int n, const real *restrict diag, real off,
                              const real *restrict x, real *restrict y)
{
    for (int i = 0; i < n; ++i) {
        real s = diag[i] * x[i];
        if (i > 0) s += off * x[i - 1];
        if (i < n - 1) s += off * x[i + 1];
        y[i] = s;
    }
}

real cg_energy(int n, const real *restrict diag, real off, const real *restrict b, int iters)
{
    real *x = calloc(n, sizeof(real));
    real *r = malloc(n * sizeof(real));
    real *p = malloc(n * sizeof(real));
    real *Ap = malloc(n * sizeof(real));
    memcpy(r, b, n * sizeof(real));
    memcpy(p, b, n * sizeof(real));
    real rr = dot(n, r, r);
    for (int k = 0; k < iters; ++k) {
        tridiag_mv(n, diag, off, p, Ap);
        real alpha = rr / dot(n, p, Ap);
        axpy(n, alpha, p, x);
        axpy(n, -alpha, Ap, r);
        real rr_new = dot(n, r, r);
        real beta = rr_new / rr;
        for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
        rr = rr_new;
    }
    tridiag_mv(n, diag, off, x, Ap);
    real e = 0.5 * dot(n, x, Ap) - dot(n, b, x);
    free(x); free(r); free(p); free(Ap);
    return e;
}
