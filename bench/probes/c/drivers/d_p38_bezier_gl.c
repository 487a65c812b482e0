#include "harness.h"
typedef struct { double x, y; } Point2;
double path_objective(int nseg, const Point2 *ctrl, double Ltarget, double alpha);
void grad_path_objective(int nseg, const Point2 *ctrl, Point2 *d_ctrl, double Ltarget,
                         double *d_Ltarget, double alpha, double *d_alpha, double d_return);
#define NSEG 3
#define NPT (3 * NSEG + 1)
static int np(void) { return 2 * NPT + 2; }
static void init(double *p)
{
    for (int i = 0; i < NPT; i++) {
        p[2 * i] = 0.5 * i + urand(-0.1, 0.1);
        p[2 * i + 1] = sin(0.7 * i) + urand(-0.1, 0.1);
    }
    p[2 * NPT] = 4.0;
    p[2 * NPT + 1] = 0.05;
}
static double eval(const double *p)
{
    return path_objective(NSEG, (const Point2 *)p, p[2 * NPT], p[2 * NPT + 1]);
}
static void grad(const double *p, double *g)
{
    grad_path_objective(NSEG, (const Point2 *)p, (Point2 *)g, p[2 * NPT], &g[2 * NPT],
                        p[2 * NPT + 1], &g[2 * NPT + 1], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
