/* The conditional operator ?: (a leaky ReLU). */
double leaky_relu_sum(const double *x, const double *w, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double v = w[i] * x[i];
        s += v > 0.0 ? v : 0.1 * v;
    }
    return s;
}
