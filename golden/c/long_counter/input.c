/* A long length and loop counter. */
double mirror_product(const double *x, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        s += x[i] * x[n - 1 - i];
    }
    return s;
}
