/* A matrix-vector product with C99 variable-length array parameters: A is n x m. */
void matvec(int n, int m, const double A[n][m], const double x[m], double y[n])
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++) {
            s += A[i][j] * x[j];
        }
        y[i] = s;
    }
}
