/* A recurrence over time steps, a snapshot every 2 of them (counted down). */
double f(const double *x, double *y, int n, int steps)
{
    double acc = 0.0;
#pragma s2sad checkpoint periodic(2)
    for (int t = steps; t > 0; t--) {
        for (int i = 1; i < n; i++)
            y[i] = y[i - 1] * 0.5 + x[i] * y[i] * t;
        acc += y[n - 1] * y[n - 1];
    }
    return acc;
}
