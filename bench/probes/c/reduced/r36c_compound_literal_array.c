/* p36b, array form: a table as a compound literal */
double f(const double *x, int n)
{
    const double *w = (const double[]){0.25, 0.5, 0.25};
    double s = 0.0;
    for (int i = 1; i < n - 1; i++) s += x[i] * (w[0] * x[i - 1] + w[1] * x[i] + w[2] * x[i + 1]);
    return s;
}
