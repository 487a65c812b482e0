#include <math.h>
#include <stdlib.h>

static double dot(const double *a, const double *b, int m) {
    double s = 0.0;
    for (int j = 0; j < m; j++) {
        s += a[j] * b[j];
    }
    return s;
}

/* A Gram-like energy over a matrix built as an array of rows, each calloc'd in a loop. */
double row_energy(const double *x, const double *w, int n, int m) {
    double **A = (double **)malloc(n * sizeof(double *));
    for (int i = 0; i < n; i++) {
        A[i] = (double *)calloc(m, sizeof(double));
        for (int j = 0; j <= i && j < m; j++) {
            A[i][j] = sin(x[i] * w[j]);
        }
    }
    double e = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        e += dot(A[i], A[i + 1], m) + 0.5 * A[i][0] * A[i][0];
    }
    for (int i = 0; i < n; i++) {
        free(A[i]);
    }
    free(A);
    return e;
}
