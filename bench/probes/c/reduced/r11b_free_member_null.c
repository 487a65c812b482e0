#include <stdlib.h>
typedef struct { int n; double *data; } Vec;
static void vec_free(Vec *v) { free(v->data); v->data = NULL; }
double sumsq(const double *x, int n)
{
    Vec t;
    t.n = n;
    t.data = malloc(n * sizeof(double));
    double s = 0.0;
    for (int i = 0; i < n; i++) { t.data[i] = x[i] * x[i]; s += t.data[i]; }
    vec_free(&t);
    return s;
}
