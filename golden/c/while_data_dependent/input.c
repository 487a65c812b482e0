/* A while loop whose exit depends on the data. */
double accumulate_until(const double *x, int n)
{
    double s = 0.0;
    int i = 0;
    while (i < n && s < 2.0) {
        s += x[i] * x[i];
        i++;
    }
    return s;
}
