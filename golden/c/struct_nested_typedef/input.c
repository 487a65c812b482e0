/* A typedef'd struct inside another: p[i].pos.x, with the member count from a #define. */
#define DIM 3

typedef struct {
    double x[DIM];
} Vec3;

struct Particle {
    Vec3 pos;
    Vec3 vel;
    double mass;
};

double kinetic_plus_spread(const struct Particle *p, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        double v2 = 0.0;
        for (int c = 0; c < DIM; c++) {
            v2 += p[i].vel.x[c] * p[i].vel.x[c];
        }
        e += 0.5 * p[i].mass * v2 + p[i].pos.x[0] * p[i].pos.x[2];
    }
    return e;
}
