/* A weighted histogram: iterations add to shared bins under omp atomic. The adjoint of
   y[k] += e only reads d_y[k] (the update keeps it), so the reversed loop writes no bin. */
void histogram(int n, const int *bin, const double *w, const double *x, double *y)
{
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        #pragma omp atomic
        y[bin[i]] += w[i] * x[i];
    }
}
