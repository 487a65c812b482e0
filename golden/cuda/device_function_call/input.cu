#include <math.h>

/* A kernel calling a __device__ function, with a scalar parameter s that every thread reads:
   its adjoint *d_s is a sum over all threads. */
__device__ double softplus(double v)
{
    if (v > 20.0) {
        return v;
    }
    return log(1.0 + exp(v));
}

__global__ void activate(int n, double s, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = s * softplus(x[i]);
    }
}
