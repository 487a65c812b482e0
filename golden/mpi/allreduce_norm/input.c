#include <math.h>
#include <mpi.h>

/* The Euclidean norm of a vector spread over the ranks, every rank's part scaled by w, and the
   vector normalized in place by it (each rank holds n elements). */
double dist_norm(double *x, const double *w, int n)
{
    double sq[2] = {0.0, 0.0};
    for (int i = 0; i < n; i++) {
        sq[0] += w[i] * x[i] * x[i];
        sq[1] += w[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, sq, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double norm = sqrt(sq[0] / sq[1]);
    for (int i = 0; i < n; i++)
        x[i] /= norm;
    return norm;
}
