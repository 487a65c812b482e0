/* VARIANT of p11: mat_new parameters renamed (r, c); mat_free only frees.
 * A small matrix library with a Matrix struct, used for a low-rank
 * factorization loss ||U V - X||_F^2 / 2 + lambda/2 (||U||^2 + ||V||^2). */
#include <stdlib.h>
#include <string.h>

typedef struct {
    int rows, cols;
    double *data;
} Matrix;

#define MAT(M, i, j) ((M)->data[(i) * (M)->cols + (j)])

static Matrix mat_new(int r, int c)
{
    Matrix m;
    m.rows = r;
    m.cols = c;
    m.data = calloc((size_t)r * c, sizeof(double));
    return m;
}

static void mat_free(Matrix *m)
{
    free(m->data);
}

static void mat_mul(const Matrix *A, const Matrix *B, Matrix *C)
{
    for (int i = 0; i < A->rows; i++)
        for (int j = 0; j < B->cols; j++) {
            double s = 0.0;
            for (int k = 0; k < A->cols; k++)
                s += MAT(A, i, k) * MAT(B, k, j);
            MAT(C, i, j) = s;
        }
}

static void mat_axpy(double alpha, const Matrix *X, Matrix *Y)
{
    for (int t = 0; t < X->rows * X->cols; t++)
        Y->data[t] += alpha * X->data[t];
}

static double mat_frob2(const Matrix *A)
{
    double s = 0.0;
    for (int t = 0; t < A->rows * A->cols; t++)
        s += A->data[t] * A->data[t];
    return s;
}

double factor_loss(const Matrix *X, const Matrix *U, const Matrix *V, double lambda)
{
    Matrix P = mat_new(U->rows, V->cols);
    mat_mul(U, V, &P);
    mat_axpy(-1.0, X, &P);
    double f = 0.5 * mat_frob2(&P) + 0.5 * lambda * (mat_frob2(U) + mat_frob2(V));
    mat_free(&P);
    return f;
}
