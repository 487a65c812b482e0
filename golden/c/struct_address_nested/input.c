/* A local struct with a nested struct and an array member, filled by a helper through its
   address (Body b; init(&b, a[i]): nothing set before), updated through a local pointer to it,
   read through const Body * and passed by value to a helper that passes its own copy on. */
typedef struct { double x, y, z; } Vec3;
typedef struct { Vec3 pos; double m; double v[2]; } Body;
static void init(Body *b, double a) { b->pos.x = a; b->pos.y = 2.0 * a; b->pos.z = a * a; b->m = 1.0 + a; b->v[0] = a; b->v[1] = -a; }
static double energy(const Body *b) { return b->m * (b->pos.x * b->pos.y + b->pos.z) + b->v[0] * b->v[1]; }
static void kick(Body *b, double dt) { b->v[0] += dt * b->pos.x; b->pos.y += dt * b->v[1]; }
static double by_value(Body b, double dt) { b.m += dt; return energy(&b) * b.m; }
double f(const double *a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        Body b;
        init(&b, a[i]);
        Body *q = &b;
        kick(q, 0.1);
        q->m *= 1.5;
        s += energy(&b) + by_value(b, 0.2) + b.pos.y;
    }
    return s;
}
