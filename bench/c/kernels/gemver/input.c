/* A += u1 v1^T + u2 v2^T; x = beta A^T y + z; w = alpha A x. */
void gemver(int n, double alpha, double beta, double A[n][n], const double u1[n], const double v1[n],
            const double u2[n], const double v2[n], double w[n], double x[n], const double y[n], const double z[n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i] = x[i] + beta * A[j][i] * y[j];
    for (int i = 0; i < n; i++)
        x[i] = x[i] + z[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            w[i] = w[i] + alpha * A[i][j] * x[j];
}
