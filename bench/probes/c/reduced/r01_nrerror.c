#include <stdio.h>
#include <stdlib.h>
static void nrerror(const char *msg) { fprintf(stderr, "%s\n", msg); exit(1); }
double sumsq(const double *x, int n)
{
    double *w = malloc(n * sizeof(double));
    if (!w) nrerror("allocation failure");
    double s = 0.0;
    for (int i = 0; i < n; i++) { w[i] = x[i] * x[i]; s += w[i]; }
    free(w);
    return s;
}
