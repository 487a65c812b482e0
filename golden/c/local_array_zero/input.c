/* A fixed-size local array zero-initialized with {0}. */
double centroid_norm(const double *x, int n)
{
    double acc[3] = {0};
    for (int i = 0; i < n; i++) {
        acc[0] += x[3 * i];
        acc[1] += x[3 * i + 1];
        acc[2] += x[3 * i + 2];
    }
    return acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2];
}
