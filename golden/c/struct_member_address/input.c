typedef struct {
    double x;
    double v[3];
    int id;
} Particle;

static void scale3(double *y, double a)
{
    for (int c = 0; c < 3; c++)
        y[c] *= a;
}

static void push(double *y, double d)
{
    *y = *y + d * d;
}

void kick(Particle *p, const double *f, double dt)
{
    scale3(&p->v[0], 1.0 - dt);
    for (int c = 0; c < 3; c++)
        p->v[c] += dt * f[c] * p->x;
    push(&p->x, dt * (p->v[0] + p->id));
}
