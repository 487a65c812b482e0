/* malloc(n * sizeof *p) of an array of structs: "sizeof gives 8 bytes but a
 * particle is 16" (sizeof(particle) is accepted; so is sizeof *f of a double *f). */
#include <stdlib.h>
typedef struct { double x, v; } particle;
double f(int n, const double *a)
{
    particle *p = malloc(n * sizeof *p);
    double s = 0.0;
    for (int i = 0; i < n; i++) { p[i].x = a[i]; p[i].v = a[i] * a[i]; }
    for (int i = 0; i < n; i++) s += p[i].x * p[i].v;
    free(p);
    return s;
}
