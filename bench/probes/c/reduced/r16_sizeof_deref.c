#include <stdlib.h>
double sumsq(int n, const double *x)
{
    double *f = malloc(n * sizeof *f);
    double s = 0.0;
    for (int i = 0; i < n; i++) f[i] = x[i] * x[i];
    for (int i = 0; i < n; i++) s += f[i];
    free(f);
    return s;
}
