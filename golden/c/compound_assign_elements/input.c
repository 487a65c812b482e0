/* Compound assignment *=, -=, /=, += on array elements, in place. */
void relax(double *y, const double *x, int n)
{
    for (int i = 0; i < n; i++) {
        y[i] *= 0.5 + x[i];
        y[i] -= x[i];
        y[i] /= 1.0 + x[i] * x[i];
        y[i] += y[i] * y[i];
    }
}
