/* A sub-array passed to a static callee as x + i. */
static double forward_difference(const double *p)
{
    return p[1] - p[0];
}

double roughness(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        double d = forward_difference(x + i);
        s += d * d * x[i];
    }
    return s;
}
