#include <math.h>

/* One block per row, its threads striding over the row's columns by blockDim.x, each adding
   its part of the row's squared norm into out[row] atomically. threadIdx.x is unsigned in
   CUDA: the reversed loop's bounds read it as a long, so that thread 0's loop (down to
   threadIdx.x - 1 = -1) runs, and a row shorter than the block leaves its last threads none. */
__global__ void row_norms(int m, const double *x, double *out)
{
    int row = blockIdx.x;
    double s = 0.0;
    for (int j = threadIdx.x; j < m; j += blockDim.x) {
        double v = x[row * m + j];
        s += v * sqrt(v * v + 1.0);
    }
    atomicAdd(&out[row], s);
}
