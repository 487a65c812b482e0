#include <math.h>
#include <mpi.h>

/* The root holds the whole field (m values per rank) and scatters it; each rank smooths its
   block with the softplus of its values, and every rank gathers the smoothed field back to
   weight its own result. */
double spread_field(const double *field, const double *w, int m)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double block[4], smooth[4], whole[16];
    MPI_Scatter(field, m, MPI_DOUBLE, block, m, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < m; i++)
        smooth[i] = log1p(exp(block[i])) * w[i];
    MPI_Allgather(smooth, m, MPI_DOUBLE, whole, m, MPI_DOUBLE, MPI_COMM_WORLD);
    double s = 0.0;
    for (int j = 0; j < m * size; j++)
        s += whole[j] * whole[j] * (rank + 1);
    return s;
}
