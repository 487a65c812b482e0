/* Dot product: double pointers and an int length. */
double dot(double *x, double *y, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * y[i];
    }
    return s;
}
