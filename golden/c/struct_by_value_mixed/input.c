typedef struct { double gamma; int m; } Wishart;

double f(const double *x, int n, Wishart w)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += w.gamma * x[i] * x[i] + w.m * x[i];
    return s * w.gamma;
}
