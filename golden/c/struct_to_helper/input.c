#include <stdlib.h>

typedef struct { double gamma; int m; } Wishart;
typedef struct { int rows, cols; double *data; } Matrix;

/* C = A B, sized by the product. */
static void mat_mult(const Matrix *A, const Matrix *B, Matrix *C)
{
    C->rows = A->rows;
    C->cols = B->cols;
    for (int i = 0; i < A->rows; i++)
        for (int j = 0; j < B->cols; j++) {
            double s = 0.0;
            for (int k = 0; k < A->cols; k++)
                s += A->data[i * A->cols + k] * B->data[k * B->cols + j];
            C->data[i * C->cols + j] = s;
        }
}

static double frobenius(const Matrix *M)
{
    double s = 0.0;
    for (int i = 0; i < M->rows * M->cols; i++)
        s += M->data[i] * M->data[i];
    return s;
}

static double prior(Wishart w, const Matrix *M)
{
    return 0.5 * w.gamma * w.gamma * frobenius(M) - w.m * M->data[0];
}

/* Structs passed to helpers as written: by value (w), by pointer (A, &B), a local struct the
 * callee fills in (&T, reused as scratch every step) and whose size it sets. */
double chain(const Matrix *A, const double *steps, int nsteps, Wishart w)
{
    Matrix T;
    T.data = malloc(A->rows * A->cols * sizeof(double));
    double s = prior(w, A);
    for (int t = 0; t < nsteps; t++) {
        Matrix B = {A->cols, A->cols, (double *)&steps[t * A->cols * A->cols]};
        mat_mult(A, &B, &T);
        s += frobenius(&T) / (T.rows * T.cols);
    }
    free(T.data);
    return s;
}
