/* A parallel region with two worksharing loops. Each thread computes the scale c itself
   (a variable of the region: the thread's own); the first loop has no barrier after it,
   which is safe because the second loop touches neither y nor what the first reads. */
void scale_both(int n, double a, const double *x, double *y, const double *u, double *v)
{
    #pragma omp parallel
    {
        double c = a * a + 1.0;
        #pragma omp for nowait
        for (int i = 0; i < n; i++) {
            y[i] = c * x[i];
        }
        #pragma omp for schedule(static)
        for (int i = 0; i < n; i++) {
            v[i] = u[i] * u[i] / c;
        }
    }
}
