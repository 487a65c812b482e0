#include <math.h>

/* Warp-level reductions as they are written with shuffles: each warp sums its lanes' products
   with __shfl_down_sync and lane 0 adds the warp's total to out atomically; every lane reads
   that total broadcast from lane 0 by __shfl_sync; a butterfly of __shfl_xor_sync gives every
   lane the warp's sum of squares. A shuffle's adjoint is a shuffle the other way
   (__shfl_up_sync for __shfl_down_sync), run by every lane as the primal's was. */
__global__ void warp_dot(int n, const double *x, const double *y, double *out, double *z)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? x[i] * y[i] : 0.0;
    for (int off = 16; off > 0; off /= 2) {
        v += __shfl_down_sync(0xffffffff, v, off);
    }
    double total = __shfl_sync(0xffffffff, v, 0);
    double q = i < n ? x[i] * x[i] : 0.0;
    for (int m = 1; m < 32; m *= 2) {
        q += __shfl_xor_sync(0xffffffff, q, m);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(out, v);
    }
    if (i < n) {
        z[i] = total * y[i] + sqrt(q + 1.0);
    }
}
