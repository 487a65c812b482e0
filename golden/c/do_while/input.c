/* A do/while loop: running products. */
double running_products(const double *x, int n)
{
    double p = 1.0;
    double s = 0.0;
    int i = 0;
    do {
        p *= x[i];
        s += p;
        i++;
    } while (i < n);
    return s;
}
