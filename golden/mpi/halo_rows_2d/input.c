#include <mpi.h>

/* One Jacobi-like relaxation sweep per step on a 2-D grid cut into bands of rows, declared
   as a 2-D array: rows 1..rows are this rank's, rows 0 and rows + 1 the neighbours' edge rows,
   exchanged as whole rows (u[rows], &u[1][0]) before every sweep. */
double relax(int rows, int m, double u[rows + 2][m], double w, int sweeps)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (int s = 0; s < sweeps; s++) {
        MPI_Sendrecv(u[rows], m, MPI_DOUBLE, down, 0, u[0], m, MPI_DOUBLE, up, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1][0], m, MPI_DOUBLE, up, 1, &u[rows + 1][0], m, MPI_DOUBLE, down, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 1; i <= rows; i++)
            for (int j = 1; j < m - 1; j++)
                u[i][j] = (1.0 - w) * u[i][j] + 0.25 * w * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
    }
    double e = 0.0;
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < m; j++)
            e += u[i][j] * u[i][j];
    double total;
    MPI_Allreduce(&e, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}
