/* Common finite-difference checker for the s2sad C probes.
 * A driver defines np(), init(p), eval(p) and grad(p, g), then includes
 * this file with HARNESS_MAIN defined at its end. */
#ifndef HARNESS_H
#define HARNESS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static unsigned long long rng_state = 88172645463325252ULL;
static double urand(double lo, double hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * ((rng_state >> 11) * (1.0 / 9007199254740992.0));
}
static double maxdiff(const double *a, const double *b, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}
static void fill(double *a, int n, double lo, double hi)
{
    for (int i = 0; i < n; i++) a[i] = urand(lo, hi);
}

#endif /* HARNESS_H */

#ifdef HARNESS_MAIN
static int np(void);
static void init(double *p);
static double eval(const double *p);
static void grad(const double *p, double *g);
#ifdef SIDE_EFFECTS
static double side(const double *p);
#endif
int main(void)
{
    int NPAR = np();
    double *p = malloc(NPAR * sizeof(double)), *g = calloc(NPAR, sizeof(double));
    double *q = malloc(NPAR * sizeof(double));
    double *fd1 = malloc(NPAR * sizeof(double)), *fd2 = malloc(NPAR * sizeof(double));
    const double tol = 1e-5;
    init(p);
    memcpy(q, p, NPAR * sizeof(double));
    grad(q, g);
    double f0 = eval(p);
    double scale = 0.0;
    for (int i = 0; i < NPAR; i++) {
        for (int s = 0; s < 2; s++) {
            double h = (s == 0 ? 1e-6 : 1e-5) * fmax(1.0, fabs(p[i]));
            memcpy(q, p, NPAR * sizeof(double));
            q[i] = p[i] + h;
            double fp = eval(q);
            q[i] = p[i] - h;
            double fm = eval(q);
            (s == 0 ? fd1 : fd2)[i] = (fp - fm) / (2.0 * h);
        }
        scale = fmax(scale, fmax(fabs(fd1[i]), fabs(g[i])));
    }
    int bad = 0, nonfinite = 0;
    double e1max = 0.0, e2max = 0.0;
    for (int i = 0; i < NPAR; i++) {
        if (!isfinite(g[i])) nonfinite++;
        double den1 = fmax(fabs(fd1[i]), fabs(g[i])) + 1e-2 * scale + 1e-300;
        double den2 = fmax(fabs(fd2[i]), fabs(g[i])) + 1e-2 * scale + 1e-300;
        double e1 = fabs(g[i] - fd1[i]) / den1, e2 = fabs(g[i] - fd2[i]) / den2;
        if (e1 > e1max) e1max = e1;
        if (e2 > e2max) e2max = e2;
        if (e1 > tol && e2 > tol) {
            if (bad < 12)
                printf("  param %d: grad=% .10e  fd(h=1e-6)=% .10e  fd(h=1e-5)=% .10e\n",
                       i, g[i], fd1[i], fd2[i]);
            bad++;
        }
    }
#ifdef SIDE_EFFECTS
    {
        double sd = side(p);
        printf("side effects: max |primal - gradient| over written arrays = %.3e\n", sd);
        if (!(sd <= 1e-12)) { printf("RESULT: SIDE-EFFECT MISMATCH\n"); return 4; }
    }
#endif
    printf("f=%.10g  nparams=%d  max_rel_err(h=1e-6)=%.2e  max_rel_err(h=1e-5)=%.2e\n",
           f0, NPAR, e1max, e2max);
    if (nonfinite) { printf("RESULT: NONFINITE (%d components)\n", nonfinite); return 3; }
    if (bad) { printf("RESULT: MISMATCH (%d of %d components)\n", bad, NPAR); return 2; }
    printf("RESULT: OK\n");
    return 0;
}
#endif
