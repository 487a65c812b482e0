/* Solve A x = b by LU factorization, forward and back substitution. */
void ludcmp(int n, double A[n][n], const double b[n], double x[n], double y[n])
{
    for (int i = 0; i < n; i++)
        A[i][i] += 2.0 * n;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            double w = A[i][j];
            for (int k = 0; k < j; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w / A[j][j];
        }
        for (int j = i; j < n; j++) {
            double w = A[i][j];
            for (int k = 0; k < i; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w;
        }
    }
    for (int i = 0; i < n; i++) {
        double w = b[i];
        for (int j = 0; j < i; j++)
            w -= A[i][j] * y[j];
        y[i] = w;
    }
    for (int i = n - 1; i >= 0; i--) {
        double w = y[i];
        for (int j = i + 1; j < n; j++)
            w -= A[i][j] * x[j];
        x[i] = w / A[i][i];
    }
}
