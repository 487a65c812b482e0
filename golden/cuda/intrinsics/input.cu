#include <math.h>

/* CUDA's shorthands for arithmetic s2sad knows: __ldg(p) reads *p through the read-only
   cache, rsqrt(v) is 1 / sqrt(v), fma(a, b, c) is a * b + c, and min/max are CUDA's
   overloads (fmin/fmax on doubles, integer min/max on integers). */
__global__ void normalize_clamped(int n, int width, const double *__restrict__ x, double *__restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = min(i + 1, n - 1);
        double v = __ldg(&x[i]);
        double r = rsqrt(fma(v, v, 1.0));
        y[i] = max(min(v * r, 0.9), -0.9) + __ldg(x + j) * (double)max(width, 1);
    }
}
