/* A local struct of numbers (an array member among them) that helpers update through its
   address in every iteration (State *: the caller sees what they write), read through a const
   pointer by another, and through a local pointer to it (State *q = &s). */
typedef struct {
    double x[2];
    double v;
    double t;
} State;

static double force(const State *s, double k)
{
    return -k * (s->x[0] - 0.5 * s->x[1]) - 0.1 * s->v;
}

static void step(State *s, double dt, double k)
{
    double f = force(s, k);
    s->v += dt * f;
    s->x[1] = s->x[0];
    s->x[0] += dt * s->v;
    s->t += dt;
}

double drift(const double *x0, double v0, double k, int n)
{
    State s = {{x0[0], x0[1]}, v0, 0.0};
    State *q = &s;
    double acc = 0.0;
    for (int i = 0; i < n; i++) {
        step(&s, 0.1, k);
        q->v *= 0.99;
        acc += q->x[0] * q->x[0] + s.v * q->t;
    }
    return acc + force(q, k);
}
