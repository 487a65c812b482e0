#include <mpi.h>

/* The dot product of two vectors spread over the ranks: each rank holds n elements of each. */
double dist_dot(const double *x, const double *y, int n)
{
    double local = 0.0;
    for (int i = 0; i < n; i++)
        local += x[i] * y[i];
    double total = 0.0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}
