#include <math.h>

typedef struct {
    int rows, cols;
    double *data;
} Matrix;

/* A weighted Frobenius norm, read through a Matrix whose data is a pointer member. */
double frob(const Matrix *M, const double *w)
{
    double s = 0.0;
    for (int i = 0; i < M->rows; i++)
        for (int j = 0; j < M->cols; j++)
            s += w[j] * M->data[i * M->cols + j] * M->data[i * M->cols + j];
    return sqrt(s);
}
