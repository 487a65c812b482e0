/* LU factorization without pivoting of a diagonally dominant matrix, in place. */
void lu(int n, double A[n][n])
{
    for (int i = 0; i < n; i++)
        A[i][i] += 2.0 * n;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        for (int j = i; j < n; j++)
            for (int k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
    }
}
