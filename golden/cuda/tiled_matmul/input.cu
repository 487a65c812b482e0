#define TILE 4

/* The classic shared-memory matrix product, C = A B for n x n matrices (n a multiple of
   TILE, blocks of TILE x TILE threads): each block stages tiles of A and B in shared memory
   between barriers. The reverse sweep mirrors the barriers, gives the tiles __shared__
   shadows, and fills the tiles again at the start of each reversed iteration, as the forward
   iteration filled them: what each thread read of them is read again, not taped. */
__global__ void matmul(int n, const double *A, const double *B, double *C)
{
    __shared__ double As[TILE][TILE];
    __shared__ double Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    double acc = 0.0;
    for (int t = 0; t < n / TILE; t++) {
        As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) {
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    C[row * n + col] = acc;
}
