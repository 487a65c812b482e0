/* Second pointers to a struct parameter (Matrix *N = M; const Matrix *C = N;): each names the
   same members, so what a helper writes through one (N->s) the others read. */
typedef struct {
    int rows, cols;
    double *data;
    double s;
} Matrix;

static void scale(Matrix *A, double a)
{
    A->s *= a;
}

double f(Matrix *M, const double *x)
{
    Matrix *N = M;
    const Matrix *C = N;
    scale(N, x[0]);
    double t = 0.0;
    for (int k = 0; k < C->rows * C->cols; k++)
        t += C->data[k] * M->s + N->s * x[1];
    return t;
}
