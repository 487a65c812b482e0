/* A gather through an index list: iterations may add to the same d_x element (omp atomic). */
void gather(int n, const int *idx, const double *w, const double *x, double *out)
{
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        out[i] = w[i] * x[idx[i]];
    }
}
