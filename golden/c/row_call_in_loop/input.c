/* A helper overwrites each row of a matrix in place: each reversed iteration restores its row
   (m elements, the matrix's second extent) from an array tape. */
#include <math.h>
static void scale_row(int m, double row[m], double s) {
    for (int j = 0; j < m; j++) row[j] = sin(row[j]) * s;
}
double f(int n, int m, double A[n][m]) {
    double t = 0.0;
    for (int i = 0; i < n; i++) {
        scale_row(m, A[i], 2.0 + i);
        for (int j = 0; j < m; j++) t += A[i][j] * A[i][j];
    }
    return t;
}
