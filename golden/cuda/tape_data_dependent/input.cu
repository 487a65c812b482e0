#include <math.h>

/* Each thread halves its value until it is small: the number of steps depends on the data,
   so each thread's tape grows on the device heap as it goes. */
__global__ void shrink(int n, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double s = x[i];
        double p = 1.0;
        while (s > 1.0) {
            p = p * sin(s) + s;
            s = 0.5 * s;
        }
        y[i] = p;
    }
}
