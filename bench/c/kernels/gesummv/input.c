/* y = alpha A x + beta B x. */
void gesummv(int n, double alpha, double beta, const double A[n][n], const double B[n][n], double tmp[n],
             const double x[n], double y[n])
{
    for (int i = 0; i < n; i++) {
        tmp[i] = 0.0;
        y[i] = 0.0;
        for (int j = 0; j < n; j++) {
            tmp[i] = A[i][j] * x[j] + tmp[i];
            y[i] = B[i][j] * x[j] + y[i];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}
