/* lastprivate: after the loop, t holds what the last iteration assigned, so its adjoint
   flows back to that iteration only. */
double last_square(int n, const double *x, double *y)
{
    double t = 0.0;
    #pragma omp parallel for lastprivate(t)
    for (int i = 0; i < n; i++) {
        t = x[i] * x[i];
        y[i] = t + x[i];
    }
    return t * t;
}
