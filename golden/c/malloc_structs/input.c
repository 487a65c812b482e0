#include <stdlib.h>
#include <math.h>

/* An array of structs on the heap, malloc(n * sizeof(Particle)), filled from the inputs. */
typedef struct {
    double pos[2];
    double mass;
} Particle;

double potential(const double *x, const double *m, int n)
{
    Particle *ps = malloc(n * sizeof(Particle));
    for (int i = 0; i < n; i++) {
        ps[i].pos[0] = x[2 * i];
        ps[i].pos[1] = x[2 * i + 1];
        ps[i].mass = m[i] * m[i];
    }
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            double dx = ps[i].pos[0] - ps[j].pos[0];
            double dy = ps[i].pos[1] - ps[j].pos[1];
            e -= ps[i].mass * ps[j].mass / sqrt(dx * dx + dy * dy + 0.1);
        }
    }
    free(ps);
    return e;
}
