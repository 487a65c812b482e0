#include <math.h>

/* A grid-stride loop, the usual way to cover n elements with any launch: thread t handles
   t, t + stride, t + 2 * stride, ... The loop is counted (its step is a launch extent), its
   reverse visits the same elements backwards, and each thread's elements are its own. */
__global__ void softplus_scale(int n, const double *x, double beta, double *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = log(1.0 + exp(beta * x[i])) / beta;
    }
}
