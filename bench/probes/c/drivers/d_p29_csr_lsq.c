#include "harness.h"
typedef struct {
    int nrows, ncols, nnz;
    const int *rowptr;
    const int *colind;
    double *val;
} csr_matrix;
double sparse_robust_lsq(const csr_matrix *A, const double *x, const double *b,
                         double c, double lambda);
void grad_sparse_robust_lsq(const csr_matrix *A, csr_matrix *d_A, const double *x, double *d_x,
                            const double *b, double *d_b, double c, double *d_c,
                            double lambda, double *d_lambda, double d_return);
#define NR 9
#define NC 6
static int ROWPTR[NR + 1], COLIND[NR * NC], NNZ;
/* p: val[NNZ], x[NC], b[NR], c, lambda */
static int np(void)
{
    NNZ = 0;
    for (int i = 0; i < NR; i++) {
        ROWPTR[i] = NNZ;
        for (int j = 0; j < NC; j++)
            if ((i * 7 + j * 3) % 4 != 1 || j == i % NC) COLIND[NNZ++] = j;
    }
    ROWPTR[NR] = NNZ;
    return NNZ + NC + NR + 2;
}
static void init(double *p)
{
    fill(p, NNZ, -1.5, 1.5);
    fill(p + NNZ, NC, -1, 1);
    fill(p + NNZ + NC, NR, -2, 2);
    p[NNZ + NC + NR] = 0.8;
    p[NNZ + NC + NR + 1] = 0.05;
}
static csr_matrix mk(const double *val)
{
    csr_matrix A = {NR, NC, NNZ, ROWPTR, COLIND, (double *)val};
    return A;
}
static double eval(const double *p)
{
    csr_matrix A = mk(p);
    return sparse_robust_lsq(&A, p + NNZ, p + NNZ + NC, p[NNZ + NC + NR], p[NNZ + NC + NR + 1]);
}
static void grad(const double *p, double *g)
{
    csr_matrix A = mk(p), dA = mk(g);
    grad_sparse_robust_lsq(&A, &dA, p + NNZ, g + NNZ, p + NNZ + NC, g + NNZ + NC,
                           p[NNZ + NC + NR], &g[NNZ + NC + NR], p[NNZ + NC + NR + 1],
                           &g[NNZ + NC + NR + 1], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
