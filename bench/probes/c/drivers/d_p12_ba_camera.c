#include "harness.h"
typedef struct {
    double rot[3];
    double center[3];
    double f;
    double x0[2];
    double kappa[2];
} Camera;
#define NC 2
#define NPT 3
#define NOBS 5
double ba_objective(int nobs, const Camera *cams, const double *X,
                    const int *obs_cam, const int *obs_pt, const double *feats);
void grad_ba_objective(int nobs, const Camera *cams, Camera *d_cams, const double *X, double *d_X,
                       const int *obs_cam, const int *obs_pt, const double *feats, double *d_feats,
                       double d_return);
static const int OC[NOBS] = {0, 1, 0, 1, 1}, OP[NOBS] = {0, 0, 1, 2, 1};
static int np(void) { return 11 * NC + 3 * NPT + 2 * NOBS; }
static void init(double *p)
{
    for (int c = 0; c < NC; c++) {
        double *q = p + 11 * c;
        fill(q, 3, -0.3, 0.3);          /* rot */
        fill(q + 3, 3, -0.5, 0.5);      /* center */
        q[6] = urand(0.8, 1.2);         /* f */
        fill(q + 7, 2, -0.1, 0.1);      /* x0 */
        fill(q + 9, 2, -0.05, 0.05);    /* kappa */
    }
    for (int i = 0; i < NPT; i++) {
        fill(p + 11 * NC + 3 * i, 2, -1.0, 1.0);
        p[11 * NC + 3 * i + 2] = urand(4.0, 6.0);
    }
    fill(p + 11 * NC + 3 * NPT, 2 * NOBS, -0.3, 0.3);
}
static double eval(const double *p)
{
    Camera cams[NC];
    memcpy(cams, p, sizeof cams);
    return ba_objective(NOBS, cams, p + 11 * NC, OC, OP, p + 11 * NC + 3 * NPT);
}
static void grad(const double *p, double *g)
{
    Camera cams[NC], dc[NC];
    memcpy(cams, p, sizeof cams);
    memset(dc, 0, sizeof dc);
    grad_ba_objective(NOBS, cams, dc, p + 11 * NC, g + 11 * NC, OC, OP,
                      p + 11 * NC + 3 * NPT, g + 11 * NC + 3 * NPT, 1.0);
    memcpy(g, dc, sizeof dc);
}
#define HARNESS_MAIN
#include "harness.h"
