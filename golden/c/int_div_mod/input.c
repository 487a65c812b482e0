/* Integer % and / in index arithmetic. */
double tiled(const double *w, const double *x, int n, int m)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += w[i % m] * x[i / 2];
    }
    return s * s;
}
