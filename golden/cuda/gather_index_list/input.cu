/* A weighted gather through an index list: indices may repeat, so d_x[idx[i]] needs
   atomicAdd, while d_w[i] belongs to thread i alone. */
__global__ void gather(int n, const int *idx, const double *w, const double *x, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = w[i] * x[idx[i]];
    }
}
