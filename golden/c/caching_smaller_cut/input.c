/* x[i] and y[i] are overwritten; the reverse sweep needs them only through p, and what it
   needs of p (p * p + 1.0, p - 2.0) is cheap to compute again: p is the one value taped per
   iteration (not those, nor x[i] and y[i]). */
double f(double *x, double *y, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double p = x[i] + y[i];
        s += (p * p + 1.0) * (p - 2.0);
        x[i] = 0.5 * y[i];
        y[i] = 2.0 * p;
    }
    return s;
}
