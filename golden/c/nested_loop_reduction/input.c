/* Nested loops (a triangular pair loop) reducing into one scalar. */
double pair_repulsion(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            double d = x[i] - x[j];
            s += 1.0 / (1.0 + d * d);
        }
    }
    return s;
}
