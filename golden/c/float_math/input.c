/* Single precision throughout: float arrays and scalars, sinf/expf, 1.0f literals. */
#include <math.h>

float soft_energy(const float *x, float a, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        float v = a * x[i];
        s += sinf(v) + 0.5f * expf(-v * v);
    }
    return s / (1.0f + 0.25f * a * a);
}
