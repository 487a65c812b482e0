#include <mpi.h>

/* Each rank passes its vector to the next rank around a ring and takes the previous rank's,
   with blocking sends and receives (even ranks send first, odd ranks receive first, so no two
   ranks wait on each other); the result sums the products of neighbours' elements. */
double ring_energy(const double *x, int n)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size;
    int prev = (rank + size - 1) % size;
    double got[16];
    if (rank % 2 == 0) {
        MPI_Send(x, n, MPI_DOUBLE, next, 7, MPI_COMM_WORLD);
        MPI_Recv(got, n, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(got, n, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(x, n, MPI_DOUBLE, next, 7, MPI_COMM_WORLD);
    }
    double e = 0.0;
    for (int i = 0; i < n; i++)
        e += got[i] * x[i] * x[i];
    double total;
    MPI_Reduce(&e, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return rank == 0 ? total : 0.0;
}
