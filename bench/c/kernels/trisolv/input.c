/* Forward substitution with a lower triangular L whose diagonal is kept away from zero. */
void trisolv(int n, const double L[n][n], double x[n], const double b[n])
{
    for (int i = 0; i < n; i++) {
        x[i] = b[i];
        for (int j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / (L[i][i] + 2.0);
    }
}
