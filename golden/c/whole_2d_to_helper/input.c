/* A blur of an n x m grid into B, a helper's whole-array parameter. */
static void blur(int n, int m, const double A[n][m], double B[n][m])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            double s = A[i][j];
            if (i > 0) {
                s += A[i - 1][j];
            }
            if (j > 0) {
                s += A[i][j - 1];
            }
            B[i][j] = 0.5 * s;
        }
    }
}

/* The cubic energy of the blurred grid, held in a variable-length local array. */
double blurred_energy(int n, int m, const double A[n][m])
{
    double B[n][m];
    blur(n, m, A, B);
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            e += B[i][j] * B[i][j] * B[i][j];
        }
    }
    return e;
}
