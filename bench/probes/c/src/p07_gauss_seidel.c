/* Gauss-Seidel sweeps for -u'' = f on (0,1), Dirichlet zero, then the
 * discrete energy. u holds the initial guess and is updated in place. */
double gs_energy(int n, const double *f, double *u, int sweeps, double h)
{
    int it, i;
    double h2 = h * h;
    for (it = 0; it < sweeps; it++) {
        for (i = 0; i < n; i++) {
            double left = (i > 0) ? u[i - 1] : 0.0;
            double right = (i < n - 1) ? u[i + 1] : 0.0;
            u[i] = 0.5 * (left + right + h2 * f[i]);
        }
    }
    double e = 0.0;
    for (i = 0; i <= n; i++) {
        double a = (i > 0) ? u[i - 1] : 0.0;
        double b = (i < n) ? u[i] : 0.0;
        e += 0.5 * (b - a) * (b - a) / h2;
    }
    for (i = 0; i < n; i++)
        e -= f[i] * u[i];
    return e * h;
}
