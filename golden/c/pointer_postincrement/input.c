/* Reading through pointers with *p++. */
double weighted_cubes(const double *x, const double *w, int n)
{
    const double *p = x;
    const double *q = w;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double v = *p++;
        s += v * v * v * *q++;
    }
    return s;
}
