#include <mpi.h>

/* Every rank fits its own data (a least-squares slope through the origin); the root gathers
   the slopes, weighs them by the ranks' sizes and broadcasts the combined slope, which every
   rank then uses to write its residuals. */
double combined_slope(const double *x, const double *y, double *res, int n)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double sxy = 0.0, sxx = 0.0;
    for (int i = 0; i < n; i++) {
        sxy += x[i] * y[i];
        sxx += x[i] * x[i];
    }
    double mine[2] = {sxy / sxx, sxx};
    double all[8];
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double slope = 0.0;
    if (rank == 0) {
        double num = 0.0, den = 0.0;
        for (int r = 0; r < size; r++) {
            num += all[2 * r] * all[2 * r + 1];
            den += all[2 * r + 1];
        }
        slope = num / den;
    }
    MPI_Bcast(&slope, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        res[i] = y[i] - slope * x[i];
    return slope;
}
