#include <mpi.h>
#include <stdlib.h>

/* The 1-D heat equation of heat_sendrecv, its halo exchanged with non-blocking calls: the
   receives and sends of a step are started together, the interior cells (which need no halo)
   are updated while the messages travel, then the two edge cells once the exchange is done. */
void heat(double *u, const double *k, int n, int steps)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double *next = malloc((n + 2) * sizeof(double));
    MPI_Request reqs[4];
    for (int t = 0; t < steps; t++) {
        MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[1]);
        MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &reqs[2]);
        MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[3]);
        for (int i = 2; i < n; i++)
            next[i] = u[i] + k[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        next[1] = u[1] + k[1] * (u[0] - 2.0 * u[1] + u[2]);
        next[n] = u[n] + k[n] * (u[n - 1] - 2.0 * u[n] + u[n + 1]);
        for (int i = 1; i <= n; i++)
            u[i] = next[i];
    }
    free(next);
}
