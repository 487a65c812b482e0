/* A helper called in a branch reads an array that changes after the branch: the copy its
   gradient re-runs from lives until the reverse sweep has used it. */
static double sumsq(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * x[i];
    }
    return s;
}

double f(double *x, int n)
{
    double r = 0.0;
    if (x[0] > 0.0) {
        r = sumsq(x, n);
    }
    x[1] = x[1] * 3.0;
    return r + x[1] * x[2];
}
