/* 2-D Jacobi smoothing with two work buffers swapped by pointer. */
#include <string.h>

#define IDX(i, j) ((i) * n + (j))

double jacobi2d(int n, const double *src, double *work1, double *work2, int iters, double w)
{
    double *cur = work1, *nxt = work2, *tmp;
    memcpy(cur, src, n * n * sizeof(double));
    memcpy(nxt, src, n * n * sizeof(double));
    for (int it = 0; it < iters; it++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                nxt[IDX(i, j)] = (1.0 - w) * cur[IDX(i, j)]
                    + 0.25 * w * (cur[IDX(i - 1, j)] + cur[IDX(i + 1, j)]
                                  + cur[IDX(i, j - 1)] + cur[IDX(i, j + 1)]);
        tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    double s = 0.0;
    for (int k = 0; k < n * n; k++)
        s += cur[k] * cur[k];
    return s;
}
