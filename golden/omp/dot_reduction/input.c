/* A parallel sum: the reversed loop is parallel too, each iteration adding to its own d_x[i]. */
double dot(const double *x, const double *y, int n)
{
    double s = 0.0;
    #pragma omp parallel for reduction(+: s)
    for (int i = 0; i < n; i++) {
        s += x[i] * y[i];
    }
    return s;
}
