#define BLOCK 64

/* A block reduction in shared memory: each block sums the squares of its 64 elements into
   partial[blockIdx.x], halving the active threads between barriers. */
__global__ void block_sum_squares(int n, const double *x, double *partial)
{
    __shared__ double buf[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    buf[t] = i < n ? x[i] * x[i] : 0.0;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (t < s) {
            buf[t] += buf[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = buf[0];
    }
}
