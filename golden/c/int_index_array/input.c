/* An int index array: gathered reads w[idx[i]]. */
double gather_dot(const double *w, const int *idx, const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += w[idx[i]] * w[idx[i]] * x[i];
    }
    return s;
}
