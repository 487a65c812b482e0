/* A time-stepping loop that calls a helper updating an array of structs with integer members:
   the reverse sweep keeps each step's structs number by number (slot_get_Body, slot_set_Body),
   integers included, and restores them into an array of the same structs for grad_step. */
typedef struct {
    int id;
    double x, v;
    int kind;
} Body;

static void step(Body *bs, int n, double dt)
{
    for (int i = 0; i < n; i++) {
        double k = bs[i].kind == 1 ? 1.5 : 1.0;
        bs[i].v -= dt * k * bs[i].x * bs[i].x;
        bs[i].x += dt * bs[i].v;
    }
}

double simulate(Body *bs, int n, double dt, int steps)
{
    for (int t = 0; t < steps; t++)
        step(bs, n, dt);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += bs[i].x * bs[i].id + bs[i].v * bs[i].v;
    return s;
}
