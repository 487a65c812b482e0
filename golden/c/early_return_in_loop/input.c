/* return from inside a loop. */
double first_large(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (x[i] > 0.8) {
            return s * x[i];
        }
        s += x[i] * x[i];
    }
    return s;
}
