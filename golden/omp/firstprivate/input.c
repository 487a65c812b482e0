/* firstprivate and private copies: each iteration reads its copy of a and assigns its own t;
   outside the loop t keeps its value. */
double axpy_private(int n, double a, const double *x, double *y)
{
    double t = 1.0;
    #pragma omp parallel for firstprivate(a) private(t)
    for (int i = 0; i < n; i++) {
        t = a * x[i];
        y[i] = t * t + y[i];
    }
    return t * a;
}
