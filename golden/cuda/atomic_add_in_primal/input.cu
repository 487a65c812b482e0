#include <math.h>

/* A sum with atomicAdd in the primal, as kernels often total a result: each thread adds its
   terms to total[0] and total[1] atomically. Their adjoints read d_total (every thread, no
   race); the gradient's forward sweep adds atomically again, so total ends as the primal
   leaves it. */
__global__ void sum_terms(int n, const double *x, double *total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(total, x[i] * sin(x[i]));
        atomicAdd(&total[1], x[i]);
    }
}
