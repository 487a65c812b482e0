/* WRONG GRADIENT: memcpy(p, a, n * sizeof *p) with p an array of structs of
 * two doubles is read as a copy of n doubles (not 2n): the gradient's forward
 * sweep leaves p[n/2..].x/.v uninitialised and d_a[n..2n-1] stays 0.
 * With sizeof(particle) it is correct. f = sum x*v, df/da[2i] = a[2i+1]. */
#include <stdlib.h>
#include <string.h>
typedef struct { double x, v; } particle;
double f(int n, const double *a)
{
    particle *p = malloc(n * sizeof(particle));
    memcpy(p, a, n * sizeof *p);
    double s = 0.0;
    for (int i = 0; i < n; i++) s += p[i].x * p[i].v;
    free(p);
    return s;
}
