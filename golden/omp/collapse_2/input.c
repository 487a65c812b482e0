/* collapse(2) over an n x m grid: iteration (i, j) owns B[i * m + j] and A[i * m + j];
   every iteration adds into the column weight's adjoint d_c[j] (shared by the rows) and
   reads the scalar a (a sum of the adjoint loop). */
void grid(int n, int m, double a, const double *A, const double *c, double *B)
{
    #pragma omp parallel for collapse(2)
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            B[i * m + j] = a * c[j] * A[i * m + j] * A[i * m + j];
        }
    }
}
