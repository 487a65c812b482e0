/* A loop stepping with i += 2. */
double pair_products(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i + 1 < n; i += 2) {
        s += x[i] * x[i + 1];
    }
    return s;
}
