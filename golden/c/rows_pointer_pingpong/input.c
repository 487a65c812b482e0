#include <math.h>
#include <stdlib.h>

#define NX 5
#define NY 4

static void diffuse(const double (*u)[NX], double (*v)[NX], double alpha)
{
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++) {
            double west = u[i][(j + NX - 1) % NX], east = u[i][(j + 1) % NX];
            double south = u[(i + NY - 1) % NY][j], north = u[(i + 1) % NY][j];
            v[i][j] = u[i][j] + alpha * (west + east + south + north - 4.0 * u[i][j]) - 0.1 * tanh(u[i][j]);
        }
}

/* Periodic 2-D diffusion, ping-pong: two grids malloc'd as rows, the current and next one
 * swapped by pointer after each step (double (*t)[NX] = u; u = un; un = t;). */
double heat(const double *u0, double alpha, int steps)
{
    double (*u)[NX] = malloc(NY * sizeof *u);
    double (*un)[NX] = calloc(NY, sizeof *un);
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++)
            u[i][j] = u0[i * NX + j];
    for (int s = 0; s < steps; s++) {
        diffuse((const double (*)[NX])u, un, alpha);
        un[0][0] += 0.5 * u[NY - 1][NX - 1];
        double (*t)[NX] = u;
        u = un;
        un = t;
    }
    double e = 0.0;
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++)
            e += u[i][j] * u[i][j];
    free(u);
    free(un);
    return e;
}
