#include <stdlib.h>

/* A struct with a pointer member and an integer, allocated alone (malloc(sizeof(Camera))), its
   distortion array allocated and freed through the member; passed to helpers by its pointer,
   one of which writes a number member and the integer. */
typedef struct {
    int id;
    double f;
    double k[2];
    double *dist;
} Camera;

static double project(const Camera *c, double x)
{
    return c->f * x + c->k[0] * x * x + c->dist[0] * c->id;
}

static void tune(Camera *c, double g)
{
    c->f *= g;
    c->id = 3;
}

double cam(const double *x, int n)
{
    Camera *c = malloc(sizeof(Camera));
    c->dist = malloc(2 * sizeof(double));
    c->f = x[0];
    c->k[0] = x[1] * x[1];
    c->k[1] = 0.0;
    c->dist[0] = x[1];
    c->dist[1] = x[0] * x[1];
    c->id = 2;
    tune(c, x[0]);
    double s = c->dist[1];
    for (int i = 2; i < n; i++)
        s += project(c, x[i]);
    free(c->dist);
    free(c);
    return s;
}
