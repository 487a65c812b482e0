/* A helper that updates an array of structs with an integer member, called twice: the reverse
   sweep restores the array from a copy of the whole structs taken before each call. */
typedef struct {
    int id;
    double x, v;
} Body;

static void step(Body *bs, int n, double dt)
{
    for (int i = 0; i < n; i++) {
        bs[i].v -= dt * bs[i].x * bs[i].x;
        bs[i].x += dt * bs[i].v;
    }
}

double run(Body *bs, int n, double dt)
{
    step(bs, n, dt);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += bs[i].x * bs[i].id;
    step(bs, n, dt);
    for (int i = 0; i < n; i++)
        s += bs[i].x * bs[i].v;
    return s;
}
