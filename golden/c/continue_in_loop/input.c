/* continue: skip the non-positive elements. */
double positive_cubes(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (x[i] <= 0.0) {
            continue;
        }
        s += x[i] * x[i] * x[i];
    }
    return s;
}
