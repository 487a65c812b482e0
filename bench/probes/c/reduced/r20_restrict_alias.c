static double dot(int n, const double *restrict a, const double *restrict b)
{
    double s = 0;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

double sumsq(int n, const double *x)
{
    return dot(n, x, x);
}
