/* Every iteration reads the scalar a: its adjoint is a sum over the iterations, a reduction
   of the parallel reversed loop. */
void scale(int n, double a, const double *x, double *y)
{
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        y[i] = a * x[i] * x[i] + y[i];
    }
}
