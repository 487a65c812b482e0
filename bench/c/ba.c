/*
 * Bundle adjustment: the sum of squared reprojection residuals and weight penalties, written as
 * such code usually is: a Camera struct, small vector helpers writing into the caller's arrays,
 * the residual of one observation written through an out-parameter into a buffer reused for
 * every observation.
 */
#include <math.h>
#include <stdlib.h>

typedef struct {
    double r[3];     /* angle-axis rotation */
    double c[3];     /* centre */
    double f;        /* focal length */
    double x0[2];    /* principal point */
    double kappa[2]; /* radial distortion k1, k2 */
} Camera;

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* X rotated by the angle-axis vector r (Rodrigues); to first order when the angle is tiny,
 * which avoids dividing by theta = 0. */
static void rodrigues_rotate_point(const double *r, const double *X, double *out)
{
    double sqtheta = dot3(r, r);
    if (sqtheta > 1e-12) {
        double theta = sqrt(sqtheta);
        double ct = cos(theta), st = sin(theta);
        double w[3], w_cross_X[3];
        for (int k = 0; k < 3; k++)
            w[k] = r[k] / theta;
        cross3(w, X, w_cross_X);
        double t = dot3(w, X) * (1.0 - ct);
        for (int k = 0; k < 3; k++)
            out[k] = X[k] * ct + w_cross_X[k] * st + w[k] * t;
    } else {
        double r_cross_X[3];
        cross3(r, X, r_cross_X);
        for (int k = 0; k < 3; k++)
            out[k] = X[k] + r_cross_X[k];
    }
}

static void radial_distort(const double *kappa, double *proj)
{
    double rsq = proj[0] * proj[0] + proj[1] * proj[1];
    double L = 1.0 + kappa[0] * rsq + kappa[1] * rsq * rsq;
    proj[0] *= L;
    proj[1] *= L;
}

static void project(const Camera *cam, const double *X, double *proj)
{
    double Xo[3], Xcam[3];
    for (int k = 0; k < 3; k++)
        Xo[k] = X[k] - cam->c[k];
    rodrigues_rotate_point(cam->r, Xo, Xcam);
    proj[0] = Xcam[0] / Xcam[2];
    proj[1] = Xcam[1] / Xcam[2];
    radial_distort(cam->kappa, proj);
    proj[0] = proj[0] * cam->f + cam->x0[0];
    proj[1] = proj[1] * cam->f + cam->x0[1];
}

static void compute_reproj_error(const Camera *cam, const double *X, double w, const double *feat, double *err)
{
    double proj[2];
    project(cam, X, proj);
    err[0] = w * (proj[0] - feat[0]);
    err[1] = w * (proj[1] - feat[1]);
}

double ba_objective(int nobs, const Camera *cams, const double (*X)[3], const double *w, const int (*obs)[2],
                    const double (*feats)[2])
{
    double err[2];
    double s = 0.0;
    for (int i = 0; i < nobs; i++) {
        int c = obs[i][0], p = obs[i][1];
        compute_reproj_error(&cams[c], X[p], w[i], feats[i], err);
        double w_err = 1.0 - w[i] * w[i];
        s += err[0] * err[0] + err[1] * err[1] + w_err * w_err;
    }
    return s;
}
