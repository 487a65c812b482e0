/* A k-means cost for given assignments: each point's squared distance to its centroid,
   summed. The helper's adjoint adds into the centroid's shadow d_c + lab[i] * d, which
   other iterations share: the parallel loop calls a copy of grad_dist2 whose
   accumulations are atomic. */
static double dist2(const double *a, const double *b, int d)
{
    double s = 0.0;
    for (int j = 0; j < d; j++) {
        double t = a[j] - b[j];
        s += t * t;
    }
    return s;
}

double kmeans_cost(int n, int d, const int *lab, const double *x, const double *c)
{
    double cost = 0.0;
    #pragma omp parallel for reduction(+: cost)
    for (int i = 0; i < n; i++) {
        cost += dist2(x + i * d, c + lab[i] * d, d);
    }
    return cost;
}
