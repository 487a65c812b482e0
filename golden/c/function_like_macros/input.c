/* Function-like macros, expanded as C expands them: an index macro over a row-length
   constant, a square, a macro whose body calls another, one spread over lines with
   backslashes, a call spread over two lines, and token pasting. */
#define COLS 3
#define IDX(i, j) ((i) * COLS + (j))
#define SQR(x) ((x) * (x))
#define DIFF2(a, b) SQR((a) - (b))
#define AXPY(a, x, y) \
    ((a) * (x) +      \
     (y))
#define WEIGHT_OF(k) weight_##k

double weighted_misfit(const double *A, const double *B, int rows)
{
    double weight_diag = 2.0, weight_off = 0.5;
    double s = 0.0;
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < COLS; j++) {
            double d = DIFF2(A[IDX(i, j)],
                             B[IDX(i, j)]);
            s = AXPY(i == j ? WEIGHT_OF(diag) : WEIGHT_OF(off), d, s);
        }
    }
    return s;
}
