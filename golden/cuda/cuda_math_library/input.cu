#include <math.h>

/* CUDA's math library beyond C's, differentiated as the C that defines it: sinpi(v) is
   sin(pi v), normcdf(v) is erfc(-v / sqrt 2) / 2, exp10(v) is 10^v, rcbrt and rhypot are the
   reciprocals of cbrt and hypot, norm3d is a 3-vector's length, __saturatef clamps to [0, 1],
   and __dmul_rn(a, b) is a * b rounded to nearest (C's own rounding, never fused). */
__global__ void library(int n, const double *x, const float *xf, double *y, float *yf)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        y[i] = sinpi(v) + cospi(v) * normcdf(v) + exp10(0.3 * v) + rcbrt(v + 2.0) + rhypot(v, 1.5)
               + norm3d(v, 2.0 * v, 1.0) + __dmul_rn(v, v) + __dadd_rn(v, 1.0);
        float w = xf[i];
        yf[i] = sinpif(w) + normcdff(w) + __saturatef(w) + __fmul_rn(w, w) + exp10f(w);
    }
}
