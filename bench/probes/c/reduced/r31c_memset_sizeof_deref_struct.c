/* WRONG GRADIENT (same cause as r31b): memset(p, 0, n * sizeof *p) of an array of
 * structs of two doubles zeroes only n doubles in the gradient; p[n/2..] keep
 * whatever malloc returned (t_r31c.c dirties the heap first). */
#include <stdlib.h>
#include <string.h>
typedef struct { double x, v; } particle;
double f(int n, const double *a)
{
    particle *p = malloc(n * sizeof(particle));
    memset(p, 0, n * sizeof *p);
    for (int i = 0; i < n; i++) p[i].x += a[i];
    for (int i = 0; i < n; i++) p[i].v += a[i] * a[i];
    double s = 0.0;
    for (int i = 0; i < n; i++) s += p[i].x * p[i].v;
    free(p);
    return s;
}
