/* A float kernel: single-precision arrays and scalar, a grid-stride loop. The gradient keeps
   float (its adjoints and the scalar's block sum too). */
__global__ void scale_squares(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] * x[i];
    }
}
