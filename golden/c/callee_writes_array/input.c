/* The output array is written only through a static callee. */
static void accumulate_squares(double a, const double *x, double *y, int n)
{
    for (int i = 0; i < n; i++) {
        y[i] = y[i] + a * x[i] * x[i];
    }
}

void blend(double *y, const double *x, const double *z, int n)
{
    accumulate_squares(0.25, x, y, n);
    accumulate_squares(-0.5, z, y, n);
}
