/* The comma operator: two counters walking towards each other in one for, and a value
   computed after a side effect, a = (b = 2, b + 1). */
double mirror_product(const double *x, int n)
{
    double s = 0.0;
    int i, j;
    for (i = 0, j = n - 1; i < j; i++, j--) {
        s += x[i] * x[j];
    }
    double b;
    double a = (b = x[0] * 2.0, b + 1.0);
    return s * a + b;
}
