/* A static inline scalar helper. */
static inline double sq(double v)
{
    return v * v;
}

double squared_distance(const double *x, const double *y, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += sq(x[i] - y[i]);
    }
    return s;
}
