#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdlib.h>

/* Work arrays aligned for vector loads, as HPC code allocates them. */
double smooth_energy(const double *x, int n) {
    double *w;
    if (posix_memalign((void **)&w, 64, n * sizeof(double)) != 0) {
        return 0.0;
    }
    for (int i = 0; i < n; i++) {
        w[i] = sin(x[i]) * x[i];
    }
    double e = 0.0;
    for (int i = 1; i < n; i++) {
        e += (w[i] - w[i - 1]) * (w[i] - w[i - 1]);
    }
    free(w);
    return e;
}
