/* An unsigned length and loop counter, indexing i - 1 from 1. */
double neighbour_product(const double *x, unsigned n)
{
    double s = 0.0;
    for (unsigned i = 1; i < n; i++) {
        s += x[i] * x[i - 1];
    }
    return s;
}
