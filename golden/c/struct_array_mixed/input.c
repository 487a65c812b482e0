#include <math.h>

/* An array of structs whose members are not all doubles: an int and a short beside the numbers.
   Each member is read and written as C does (the integers pass through unchanged), and a helper
   takes pointers to two of the structs. */
typedef struct {
    int type;
    double pos[2];
    double charge;
    short flags;
} Particle;

static double pair(const Particle *a, const Particle *b)
{
    double dx = a->pos[0] - b->pos[0], dy = a->pos[1] - b->pos[1];
    double w = a->type == b->type ? 1.0 : 0.5;
    return w * a->charge * b->charge / sqrt(dx * dx + dy * dy + 0.1);
}

double energy(Particle *ps, int n, double scale)
{
    for (int i = 0; i < n; i++) {
        ps[i].charge *= scale;
        ps[i].flags = i % 3;
    }
    double e = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            e += pair(&ps[i], &ps[j]) * (1 + ps[j].flags) + 0.1 * ps[i].type * ps[j].charge;
    return e;
}
