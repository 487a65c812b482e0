/* An if / else if / else chain: a piecewise polynomial. */
double piecewise(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double v = x[i];
        if (v < -0.5) {
            s += -v - 0.25;
        } else if (v < 0.5) {
            s += v * v;
        } else {
            s += 2.0 * v * v * v;
        }
    }
    return s;
}
