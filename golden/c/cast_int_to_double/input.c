/* Integer counters cast to double in arithmetic. */
double moment(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double t = (double)i / (double)n;
        s += t * x[i] * x[i];
    }
    return s;
}
