#include <stdlib.h>
#include <string.h>

/* Byte counts of struct memory written as C programs write them: sizeof *p and sizeof p[0] of
   a pointer to structs, sizeof of a local array of structs. Each is a struct's size (16 bytes
   here), not a double's: a count taken for doubles copied and cleared half the particles. */
typedef struct {
    double x, v;
} particle;

double kinetic(int n, const double *init, double dt)
{
    particle *p = malloc(n * sizeof *p);
    memcpy(p, init, n * sizeof p[0]);
    particle acc[4];
    memset(acc, 0, sizeof acc);
    for (int i = 0; i < n; i++) {
        acc[i % 4].x += p[i].x * p[i].v;
        acc[i % 4].v += p[i].v * p[i].v;
    }
    double e = 0.0;
    for (int k = 0; k < 4; k++)
        e += acc[k].x * dt + 0.5 * acc[k].v;
    free(p);
    return e;
}
