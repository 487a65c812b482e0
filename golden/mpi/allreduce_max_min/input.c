#include <math.h>
#include <mpi.h>

/* The energy of a field spread over the ranks, over its range: the global maximum by
   MPI_MAX, the global minimum (and the negated maximum again) by MPI_MIN in place. The
   adjoint of an extreme goes to the rank, and the element, that held it. */
double peak_ratio(const double *x, int n)
{
    double hi = x[0], lo = x[0], e = 0.0;
    for (int i = 1; i < n; i++) {
        hi = fmax(hi, x[i]);
        lo = fmin(lo, x[i]);
    }
    for (int i = 0; i < n; i++)
        e += x[i] * x[i];
    double top;
    MPI_Allreduce(&hi, &top, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double ends[2] = {lo, -hi};
    MPI_Allreduce(MPI_IN_PLACE, ends, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double total;
    MPI_Allreduce(&e, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total / (top - ends[0]) + ends[1] * ends[1];
}
