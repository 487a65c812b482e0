#include <math.h>
#include <stdlib.h>

#define NX 5
#define NY 4

/* One explicit step of 2-D heat diffusion on a grid held through pointers to its rows: the
 * grid malloc'd as NY rows (sizeof *u), the new grid as one block (sizeof(double[NY][NX])), a
 * flux field calloc'd for a run-time number of rows; indexed u[i][j], freed by name. */
double heat_step(const double *u0, double alpha, int ny)
{
    double (*u)[NX] = malloc(NY * sizeof *u);
    double (*v)[NX] = malloc(sizeof(double[NY][NX]));
    double (*flux)[NX] = calloc(ny, sizeof *flux);
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++) {
            u[i][j] = u0[i * NX + j];
            v[i][j] = u[i][j];
        }
    for (int i = 1; i < NY - 1; i++)
        for (int j = 1; j < NX - 1; j++) {
            double lap = u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4.0 * u[i][j];
            v[i][j] = u[i][j] + alpha * lap;
        }
    for (int i = 0; i < ny && i < NY; i++)
        for (int j = 0; j + 1 < NX; j++)
            flux[i][j] = v[i][j + 1] - v[i][j];
    double s = 0.0;
    for (int i = 0; i < ny && i < NY; i++)
        for (int j = 0; j + 1 < NX; j++)
            s += sin(flux[i][j]) * v[i][j];
    free(u);
    free(v);
    free(flux);
    return s;
}
