#include <mpi.h>
#include <stdlib.h>

/* Explicit steps of the 1-D heat equation on a rod cut into one piece per rank: u[1..n] are
   this rank's cells, u[0] and u[n + 1] copies of the neighbours' edge cells, exchanged before
   every step (the rod's ends, where there is no neighbour, keep their values). */
void heat(double *u, const double *k, int n, int steps)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double *next = malloc((n + 2) * sizeof(double));
    for (int t = 0; t < steps; t++) {
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 1; i <= n; i++)
            next[i] = u[i] + k[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        for (int i = 1; i <= n; i++)
            u[i] = next[i];
    }
    free(next);
}
