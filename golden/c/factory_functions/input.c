#include <stdlib.h>

/* Allocation helpers as numerical C writes them: each returns the array it made. */
static double **dmatrix(int n, int m) {
    int rows = n;
    double **a = malloc(rows * sizeof(double *));
    if (a == NULL) {
        return NULL;
    }
    for (int i = 0; i < rows; i++) {
        a[i] = malloc(m * sizeof(double));
    }
    return a;
}

static double *vector_of(const double *x, int n, double scale) {
    int k = 0;
    double *v = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) v[i] = scale * x[i] + k;
    return v;
}

double energy(const double *x, int n, int m) {
    int k = 2;
    double **A = dmatrix(n, m);
    double *u = vector_of(x, n, 2.0);
    if (!u) {
        return -1.0;
    }
    double *w = vector_of(u, n, 0.5 * k);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) A[i][j] = w[i] * (j + 1) + u[i];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) s += A[i][j] * A[i][j];
    for (int i = 0; i < n; i++) free(A[i]);
    free(A); free(u); free(w);
    return s;
}
