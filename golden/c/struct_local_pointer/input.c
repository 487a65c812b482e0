/* A pointer to a local struct of mixed members (Acc *q = &a): q->s and a.s are one number,
   written through either (and by a helper given q) in a loop that carries them. */
typedef struct {
    int n;
    double w[3];
    double s;
} Acc;

static void push(Acc *a, double v)
{
    a->w[a->n % 3] += v;
    a->s += v * a->w[0];
    a->n += 1;
}

double moments(const double *x, int n)
{
    Acc a = {0, {0.0, 0.0, 0.0}, 0.0};
    Acc *q = &a;
    const Acc *r = q;
    for (int i = 0; i < n; i++) {
        push(q, x[i]);
        q->s += 0.5 * x[i] * r->w[1];
    }
    return a.s + r->w[2] * q->n;
}
