#include <math.h>

/* One relaxation sweep over a grid held as rows (double **), in place. */
static void relax(double **U, int n, int m)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            U[i][j] = sin(U[i][j]) + 0.5 * U[i][j];
}

/* T sweeps; after each, the product of two corners is added up. The helper overwrites the grid
   the next sweep reads: the reverse sweep restores it, as rows, for the helper's gradient. */
double sweeps(double **U, int n, int m, int T)
{
    double s = 0.0;
    for (int t = 0; t < T; t++) {
        relax(U, n, m);
        s += U[0][0] * U[n - 1][m - 1];
    }
    return s;
}
