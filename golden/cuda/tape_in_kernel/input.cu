#include <math.h>

/* A loop whose carried value the reverse sweep needs in reverse order: each thread keeps its
   own tape, in device memory it allocates. */
__global__ void iterate(int n, int m, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double s = 1.0;
        for (int j = 0; j < m; j++) {
            s = sin(s * x[i * m + j]) + s;
        }
        y[i] = s;
    }
}
