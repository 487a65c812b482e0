/* A fixed-size local array with an initializer list. */
double stencil_energy(const double *x, int n)
{
    double w[3] = {1.0, 2.0, 0.5};
    double s = 0.0;
    for (int i = 0; i + 2 < n; i++) {
        double v = 0.0;
        for (int k = 0; k < 3; k++) {
            v += w[k] * x[i + k];
        }
        s += v * v;
    }
    return s;
}
