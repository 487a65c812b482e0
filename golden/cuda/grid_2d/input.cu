/* A 2-D launch over a matrix: each thread owns element row * w + col, so its adjoint is a
   plain +=; the scalar a, read by every thread, gets a block reduction. */
__global__ void scale2d(int h, int w, const double *x, double a, double *y)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < h && col < w) {
        y[row * w + col] = a * x[row * w + col] * x[row * w + col];
    }
}
