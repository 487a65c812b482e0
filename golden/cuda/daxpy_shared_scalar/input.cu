/* daxpy with the scale factor in device memory: every thread reads a[0], so every thread
   adds to d_a[0] in the gradient (a block reduction, then one atomicAdd per block). */
__global__ void daxpy(int n, const double *a, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a[0] * x[i] + y[i];
    }
}
