#include "harness.h"
double affine_ssd(const double *T, const float *fixed, const float *moving,
                  const unsigned char *mask, int w, int h, double reg);
void grad_affine_ssd(const double *T, double *d_T, const float *fixed, const float *moving,
                     const unsigned char *mask, int w, int h, double reg, double *d_reg,
                     double d_return);
#define W 17
#define H 13
static float FIX[W * H], MOV[W * H];
static unsigned char MASK[W * H];
static double blob(double x, double y)
{
    return exp(-((x - 7.0) * (x - 7.0) / 18.0 + (y - 6.0) * (y - 6.0) / 10.0))
         + 0.5 * exp(-((x - 12.0) * (x - 12.0) + (y - 3.5) * (y - 3.5)) / 6.0);
}
static int np(void) { return 7; }
static void init(double *p)
{
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++) {
            MOV[j * W + i] = (float)blob(i, j);
            FIX[j * W + i] = (float)blob(i + 0.6, j - 0.4);
            MASK[j * W + i] = ((i * 5 + j * 3) % 7) != 0;
        }
    p[0] = 1.0131742; p[1] = 0.0712319; p[2] = 0.4378261;  /* off the pixel grid lines */
    p[3] = -0.0523187; p[4] = 0.9813377; p[5] = -0.2931459;
    p[6] = 0.1;
}
static double eval(const double *p) { return affine_ssd(p, FIX, MOV, MASK, W, H, p[6]); }
static void grad(const double *p, double *g)
{
    grad_affine_ssd(p, g, FIX, MOV, MASK, W, H, p[6], &g[6], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
