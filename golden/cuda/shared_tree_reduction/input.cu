#define BLOCK 64

/* A block's sum of squares as such kernels are written: __restrict__ pointers, a #define'd
   block size, a conditional load into shared memory, and a tree reduction halving its stride
   with s >>= 1 between barriers; thread 0 writes the block's total. */
__global__ void block_sumsq(int n, const double *__restrict__ x, double *__restrict__ partial)
{
    __shared__ double buf[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? x[i] * x[i] : 0.0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = buf[0];
    }
}
