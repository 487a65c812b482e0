/* A work array from malloc, released with free. */
#include <math.h>
#include <stdlib.h>

double softmax_entropy(const double *x, int n)
{
    double *w = malloc(n * sizeof(double));
    double z = 0.0;
    for (int i = 0; i < n; i++) {
        w[i] = exp(x[i]);
        z += w[i];
    }
    double h = 0.0;
    for (int i = 0; i < n; i++) {
        double p = w[i] / z;
        h -= p * log(p);
    }
    free(w);
    return h;
}
