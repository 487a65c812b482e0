#define TILE 16

/* The tiled product for any n, as it is usually written: the tiles that cross the matrices'
   edge are padded with zeros under a guard, and only threads inside C write it. The reverse
   sweep runs each iteration's guarded fills again (both branches store the same elements), so
   it reads the tiles instead of taping what each thread read of them. */
__global__ void matmul_any(int n, const double *A, const double *B, double *C)
{
    __shared__ double As[TILE][TILE];
    __shared__ double Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    double acc = 0.0;
    for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
        int a_col = t * TILE + threadIdx.x;
        int b_row = t * TILE + threadIdx.y;
        if (row < n && a_col < n) {
            As[threadIdx.y][threadIdx.x] = A[row * n + a_col];
        } else {
            As[threadIdx.y][threadIdx.x] = 0.0;
        }
        if (b_row < n && col < n) {
            Bs[threadIdx.y][threadIdx.x] = B[b_row * n + col];
        } else {
            Bs[threadIdx.y][threadIdx.x] = 0.0;
        }
        __syncthreads();
        for (int k = 0; k < TILE; k++) {
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        C[row * n + col] = acc;
    }
}
