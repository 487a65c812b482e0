#include <stdlib.h>

/* One struct of mixed members on the heap, malloc(sizeof(Camera)), filled from the inputs and
   read through the pointer (c->f), then freed. */
typedef struct {
    int id;
    double f;
    double k1;
} Camera;

double reprojection(const double *x, const double *obs, int n)
{
    Camera *c = malloc(sizeof(Camera));
    c->f = x[0];
    c->k1 = 0.1 * x[1] * x[1];
    c->id = 3;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double u = c->f * obs[i] * (1.0 + c->k1 * obs[i] * obs[i]);
        s += (u - c->id) * (u - c->id);
    }
    free(c);
    return s;
}
