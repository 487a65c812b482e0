/* A struct passed by pointer, its scalar fields read as p->k. */
struct Spring {
    double k;
    double rest;
    double damping;
};

double chain_energy(const struct Spring *p, const double *x, const double *v, int n)
{
    double e = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        double stretch = x[i + 1] - x[i] - p->rest;
        e += 0.5 * p->k * stretch * stretch + p->damping * v[i] * v[i];
    }
    return e;
}
