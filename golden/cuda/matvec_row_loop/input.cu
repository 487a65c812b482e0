/* A loop inside a kernel: thread i computes row i of A x. Every thread reads all of x,
   so d_x[j] is shared; d_A[i * m + j] is not, but its index is not the thread id alone. */
__global__ void matvec(int n, int m, const double *A, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double s = 0.0;
        for (int j = 0; j < m; j++) {
            s += A[i * m + j] * x[j];
        }
        y[i] = s;
    }
}
