/* Two loops written on one line below the pragma: the pragma applies to the outer loop only
   (the next statement), so the inner loop stays serial inside each iteration. */
void rowsum(int n, int m, const double *x, double *y)
{
    #pragma omp parallel for
    for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) {
        y[i] += x[i * m + j] * x[i * m + j];
    }
}
