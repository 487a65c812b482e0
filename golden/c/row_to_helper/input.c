#include <math.h>

/* The squared norm of one row, m numbers. */
static double norm2(int m, const double row[m])
{
    double s = 0.0;
    for (int j = 0; j < m; j++) {
        s += row[j] * row[j];
    }
    return s;
}

/* The sum of the row norms of A (n x m): each row A[i] is passed to the helper. */
double sum_row_norms(int n, int m, const double A[n][m])
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += sqrt(norm2(m, A[i]));
    }
    return s;
}
