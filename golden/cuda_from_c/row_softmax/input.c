#include <math.h>

/* A softmax of each row of an n x m matrix: iteration i reads and writes the elements
   i * m + j, j in [0, m), which no other row reaches, so the rows become threads and each
   thread adds to its row's adjoints with a plain +=. (Starting the maximum at x[i * m]
   instead would make d_x atomic: with m = 0 every thread would meet at element 0.) */
void row_softmax(int n, int m, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double top = -1e300;
        for (int j = 0; j < m; j++) {
            top = fmax(top, x[i * m + j]);
        }
        double total = 0.0;
        for (int j = 0; j < m; j++) {
            y[i * m + j] = exp(x[i * m + j] - top);
            total += y[i * m + j];
        }
        for (int j = 0; j < m; j++) {
            y[i * m + j] /= total;
        }
    }
}
