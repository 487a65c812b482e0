/* A pointer walking the array: p from x to x + n. */
double sum_squares_walk(const double *x, int n)
{
    double s = 0.0;
    for (const double *p = x; p < x + n; p++) {
        s += *p * *p;
    }
    return s;
}
