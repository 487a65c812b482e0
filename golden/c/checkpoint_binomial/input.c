double heat(double *u, double *work, int n, int steps, double c)
{
#pragma s2sad checkpoint binomial(3)
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            work[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.1 * u[i] * u[i] * u[i];
        for (int i = 1; i < n - 1; i++) {
            if (work[i] > 0.0)
                u[i] = work[i];
            else
                u[i] = 0.5 * work[i];
        }
    }
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += u[i] * u[i];
    return s;
}
