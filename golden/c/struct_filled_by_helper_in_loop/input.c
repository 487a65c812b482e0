/* A local struct a helper updates through its address in every iteration (&a): the helper reads
   what the previous iteration left (a->acc, a->n), so the loop carries the members. */
typedef struct {
    double acc;
    int n;
} Acc;

static void add(Acc *a, double v)
{
    a->acc += v * (1.0 + 0.1 * a->n);
    a->n += 1;
}

double f(const double *x, int n)
{
    Acc a = {0.0, 0};
    for (int i = 0; i < n; i++)
        add(&a, x[i] * x[i]);
    return a.acc * a.n;
}
