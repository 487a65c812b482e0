/* A call whose arrays change later and a pointer offset, inside a checkpointed loop: each
   reversed iteration re-runs the call from its own copies. */
static void step(double *dst, const double *src, int m, double c)
{
    for (int i = 0; i < m; i++)
        dst[i] = src[i + 1] + c * src[i] * src[i + 2];
}

double run(double *u, double *w, int n, int steps, double c)
{
    double *inner = u + 1;
    double acc = 0.0;
#pragma s2sad checkpoint binomial(2)
    for (int t = 0; t < steps; t++) {
        step(w, u, n - 2, c);
        for (int i = 0; i < n - 2; i++)
            inner[i] = w[i];
        acc += u[t % n] * u[1];
    }
    return acc;
}
