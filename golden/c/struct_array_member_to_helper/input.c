typedef struct {
    double pos[3];
    double vel[3];
    double m;
} Body;

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void axpy3(double a, const double *x, double *y)
{
    for (int k = 0; k < 3; k++)
        y[k] += a * x[k];
}

static void square(double *v)
{
    *v = *v * *v;
}

/* Members of structs in an array passed to helpers: an array member as a pointer (bodies[i].vel),
 * the address of its first element (&bodies[i].pos[0]), the address of a number member (&b->m). */
double drift_energy(Body *bodies, int n, double dt)
{
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        Body *b = &bodies[i];
        axpy3(dt, b->vel, bodies[i].pos);
        square(&b->m);
        e += 0.5 * b->m * dot3(bodies[i].vel, b->vel) + dot3(&b->pos[0], b->pos);
    }
    return e;
}
