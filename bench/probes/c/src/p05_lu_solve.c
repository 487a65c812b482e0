/* Doolittle LU factorization in place (no pivoting, diagonally dominant
 * input), forward/back substitution, PolyBench ludcmp style. */
double lu_solve(int n, double A[n][n], double b[n], double x[n], double y[n])
{
    int i, j, k;
    double w;

    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            w = A[i][j];
            for (k = 0; k < j; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w / A[j][j];
        }
        for (j = i; j < n; j++) {
            w = A[i][j];
            for (k = 0; k < i; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w;
        }
    }
    for (i = 0; i < n; i++) {
        w = b[i];
        for (j = 0; j < i; j++)
            w -= A[i][j] * y[j];
        y[i] = w;
    }
    for (i = n - 1; i >= 0; i--) {
        w = y[i];
        for (j = i + 1; j < n; j++)
            w -= A[i][j] * x[j];
        x[i] = w / A[i][i];
    }
    double s = 0.0;
    for (i = 0; i < n; i++)
        s += (i + 1) * x[i] * x[i];
    return s;
}
