/* break out of a loop on a data-dependent condition. */
double sum_until_low(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (x[i] < -0.7) {
            break;
        }
        s += x[i] * x[i];
    }
    return s;
}
