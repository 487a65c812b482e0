#include <math.h>

#define M 4

/* The Euclidean norm of each row of an n x M matrix passed as a pointer to its rows. */
void row_norms(int n, const double (*A)[M], double *norms)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < M; j++) {
            s += A[i][j] * A[i][j];
        }
        norms[i] = sqrt(s);
    }
}
