#include <mpi.h>
#include <stdlib.h>

/* Time steps of a 2-D diffusion-reaction stencil on a grid cut into bands of rows, one band
   per rank: rows 1..rows of u (m numbers each, stored row after row) are this rank's, rows 0
   and rows + 1 copies of the neighbours' edge rows, exchanged before every step. The time
   loop is checkpointed (binomial, 3 snapshots): its reverse re-runs steps, exchanges included. */
double stencil(int rows, int m, double u[(rows + 2) * m], double c, int steps)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double *v = malloc((rows + 2) * m * sizeof(double));
#pragma s2sad checkpoint binomial(3)
    for (int t = 0; t < steps; t++) {
        MPI_Sendrecv(u + rows * m, m, MPI_DOUBLE, down, 0, u, m, MPI_DOUBLE, up, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + m, m, MPI_DOUBLE, up, 1, u + (rows + 1) * m, m, MPI_DOUBLE, down, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 1; i <= rows; i++)
            for (int j = 1; j < m - 1; j++) {
                double lap = u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1]
                             - 4.0 * u[i * m + j];
                v[i * m + j] = u[i * m + j] + c * lap - 0.1 * u[i * m + j] * u[i * m + j] * u[i * m + j];
            }
        for (int i = 1; i <= rows; i++)
            for (int j = 1; j < m - 1; j++)
                u[i * m + j] = v[i * m + j];
    }
    free(v);
    double s = 0.0;
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < m; j++)
            s += u[i * m + j] * u[i * m + j];
    double total = 0.0;
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}
