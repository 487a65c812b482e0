#include <math.h>
#include <mpi.h>

/* A fixed-point iteration x <- w cos(x) over a vector spread across the ranks, run until the
   global change (summed over the ranks by MPI_Allreduce) is small: the number of sweeps is the
   data's, the same on every rank. Single precision messages carry the change. */
double settle(double *x, const double *w, int n, double tol)
{
    float change = 1.0f;
    int sweeps = 0;
    while (change > tol && sweeps < 40) {
        float mine = 0.0f;
        for (int i = 0; i < n; i++) {
            double next = w[i] * cos(x[i]);
            mine += (float)((next - x[i]) * (next - x[i]));
            x[i] = next;
        }
        MPI_Allreduce(&mine, &change, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        sweeps++;
    }
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * w[i];
    double total;
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total + 0.001 * change;
}
