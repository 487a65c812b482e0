#include <stdlib.h>

typedef struct {
    int rows, cols;
    double *data;
} Matrix;

static Matrix mat_new(int rows, int cols)
{
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    m.data = calloc(rows * cols, sizeof(double));
    return m;
}

double sumsq(const double *x, int n)
{
    Matrix P = mat_new(n, 1);
    double s = 0.0;
    for (int i = 0; i < P.rows; i++) {
        P.data[i] = x[i] * x[i];
        s += P.data[i];
    }
    free(P.data);
    return s;
}
