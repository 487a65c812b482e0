/* A row-major n x m matrix flattened as A[i * m + j]. */
void matvec(const double *A, const double *x, double *y, int n, int m)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++) {
            s += A[i * m + j] * x[j];
        }
        y[i] = s;
    }
}
