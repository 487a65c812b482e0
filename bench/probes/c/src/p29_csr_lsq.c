/* Sparse least squares with a robust (Cauchy) loss: the matrix is stored in
 * CSR form (row pointers, column indices, values) in a small struct, as
 * sparse-matrix code keeps it; column-scaled ridge penalty from the
 * column norms of A, accumulated by scatter. */
#include <stdlib.h>
#include <math.h>

typedef struct {
    int nrows, ncols, nnz;
    const int *rowptr;   /* nrows + 1 */
    const int *colind;   /* nnz */
    double *val;         /* nnz */
} csr_matrix;

/* y = A x */
static void csr_gemv(const csr_matrix *A, const double *x, double *y)
{
    for (int i = 0; i < A->nrows; i++) {
        double s = 0.0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += A->val[k] * x[A->colind[k]];
        y[i] = s;
    }
}

/* c[j] = sum_i A_ij^2 */
static void csr_colnorms2(const csr_matrix *A, double *c)
{
    for (int j = 0; j < A->ncols; j++) c[j] = 0.0;
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            double a = A->val[k];
            c[A->colind[k]] += a * a;
        }
}

static inline double cauchy(double r, double c)
{
    double u = r / c;
    return 0.5 * c * c * log1p(u * u);
}

double sparse_robust_lsq(const csr_matrix *A, const double *x, const double *b,
                         double c, double lambda)
{
    double *r = malloc(A->nrows * sizeof(double));
    double *cn = malloc(A->ncols * sizeof(double));
    csr_gemv(A, x, r);
    double loss = 0.0;
    for (int i = 0; i < A->nrows; i++) {
        r[i] -= b[i];
        loss += cauchy(r[i], c);
    }
    csr_colnorms2(A, cn);
    double reg = 0.0;
    for (int j = 0; j < A->ncols; j++)
        reg += cn[j] * x[j] * x[j];
    free(r);
    free(cn);
    return loss + 0.5 * lambda * reg;
}
