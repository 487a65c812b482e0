/* A struct passed to a callee by address: &bodies[i] and bodies + j. */
#include <math.h>

struct Body {
    double pos[2];
    double m;
};

static double pair_energy(const struct Body *a, const struct Body *b)
{
    double dx = a->pos[0] - b->pos[0];
    double dy = a->pos[1] - b->pos[1];
    return a->m * b->m / sqrt(dx * dx + dy * dy + 0.1);
}

double energy(const struct Body *bodies, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            e += pair_energy(&bodies[i], bodies + j);
        }
    }
    return e;
}
