#include <math.h>
#include <mpi.h>

/* Every rank's energy, plus, on the root, the square of the smallest element over all ranks,
   which MPI_Reduce by MPI_MIN brings to the root alone. */
double spread_min(const double *x, int n)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double lo = x[0], e = 0.0;
    for (int i = 0; i < n; i++) {
        lo = fmin(lo, x[i]);
        e += x[i] * x[i];
    }
    double least = 0.0;
    MPI_Reduce(&lo, &least, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    return rank == 0 ? least * least + e : e;
}
