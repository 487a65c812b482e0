/* Every iteration reads the scalar a: its adjoint *d_a is a sum over all threads
   (a block reduction, then one atomicAdd per block). */
void scale(int n, double a, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        y[i] = a * x[i] * x[i] - y[i];
    }
}
