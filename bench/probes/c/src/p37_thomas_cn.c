/* 1-D heat equation with a spatially varying conductivity, Crank-Nicolson in
 * time: each step assembles a tridiagonal system (sub/main/super diagonal and
 * right-hand side in malloc'd arrays) and solves it with the Thomas algorithm
 * (forward elimination into scratch arrays, back substitution counting down).
 * Dirichlet ends held at zero. Objective: misfit to observed temperatures at
 * a few sensor cells (given by an int index array) plus a smoothness penalty
 * on the conductivity. */
#include <stdlib.h>
#include <string.h>

/* solves a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i], i = 0..n-1
 * (a[0] and c[n-1] unused); cp, dp: scratch of length n */
static void thomas(int n, const double *a, const double *b, const double *c,
                   const double *d, double *x, double *cp, double *dp)
{
    cp[0] = c[0] / b[0];
    dp[0] = d[0] / b[0];
    for (int i = 1; i < n; i++) {
        double m = 1.0 / (b[i] - a[i] * cp[i - 1]);
        cp[i] = (i < n - 1) ? c[i] * m : 0.0;
        dp[i] = (d[i] - a[i] * dp[i - 1]) * m;
    }
    x[n - 1] = dp[n - 1];
    for (int i = n - 2; i >= 0; --i)
        x[i] = dp[i] - cp[i] * x[i + 1];
}

double heat_cn_misfit(int n, const double *u0, const double *kappa, double dt, int nsteps,
                      int nsens, const int *sens, const double *obs, double beta)
{
    const double h = 1.0 / (n + 1);
    double *a = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    double *c = malloc(n * sizeof(double));
    double *rhs = malloc(n * sizeof(double));
    double *cp = malloc(n * sizeof(double));
    double *dp = malloc(n * sizeof(double));
    double *u = malloc(n * sizeof(double));
    memcpy(u, u0, n * sizeof(double));
    /* kappa lives on the n + 1 cell faces */
    for (int i = 0; i < n; i++) {
        double kw = kappa[i], ke = kappa[i + 1];
        double r = 0.5 * dt / (h * h);
        a[i] = -r * kw;
        c[i] = -r * ke;
        b[i] = 1.0 + r * (kw + ke);
    }
    for (int step = 0; step < nsteps; step++) {
        for (int i = 0; i < n; i++) {
            double ul = i > 0 ? u[i - 1] : 0.0;
            double ur = i < n - 1 ? u[i + 1] : 0.0;
            rhs[i] = -a[i] * ul + (2.0 - b[i]) * u[i] - c[i] * ur;
        }
        thomas(n, a, b, c, rhs, u, cp, dp);
    }
    double J = 0.0;
    for (int s = 0; s < nsens; s++) {
        double e = u[sens[s]] - obs[s];
        J += e * e;
    }
    for (int i = 0; i < n; i++) {
        double dk = kappa[i + 1] - kappa[i];
        J += beta * dk * dk;
    }
    free(a); free(b); free(c); free(rhs);
    free(cp); free(dp); free(u);
    return J;
}
