/* A sum into a shared variable under critical, and a shared bin: the critical update of s
   is a sum of the loop (a reduction of the adjoint's d_s reads), that of y[k] an atomic one. */
double weighted(int n, const int *bin, const double *w, const double *x, double *y)
{
    double s = 0.0;
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double e = w[i] * x[i] * x[i];
        #pragma omp critical
        {
            s += e;
            y[bin[i]] += e;
        }
    }
    return s * s;
}
