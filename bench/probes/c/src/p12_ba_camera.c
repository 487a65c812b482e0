/* Bundle-adjustment reprojection error with a Camera struct (Rodrigues
 * rotation, radial distortion), ADBench BA style. */
#include <math.h>

typedef struct {
    double rot[3];     /* angle-axis */
    double center[3];
    double f;
    double x0[2];
    double kappa[2];
} Camera;

static void cross(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void rodrigues_rotate_point(const double *rot, const double *X, double *rotatedX)
{
    double sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
    if (sqtheta != 0) {
        double theta = sqrt(sqtheta);
        double costheta = cos(theta), sintheta = sin(theta);
        double theta_inverse = 1.0 / theta;
        double w[3], w_cross_X[3];
        for (int i = 0; i < 3; i++) w[i] = rot[i] * theta_inverse;
        cross(w, X, w_cross_X);
        double tmp = (w[0] * X[0] + w[1] * X[1] + w[2] * X[2]) * (1. - costheta);
        for (int i = 0; i < 3; i++)
            rotatedX[i] = X[i] * costheta + w_cross_X[i] * sintheta + w[i] * tmp;
    } else {
        double rot_cross_X[3];
        cross(rot, X, rot_cross_X);
        for (int i = 0; i < 3; i++) rotatedX[i] = X[i] + rot_cross_X[i];
    }
}

static void radial_distort(const double *kappa, double *proj)
{
    double rsq = proj[0] * proj[0] + proj[1] * proj[1];
    double L = 1. + kappa[0] * rsq + kappa[1] * rsq * rsq;
    proj[0] *= L;
    proj[1] *= L;
}

static void project(const Camera *cam, const double *X, double *proj)
{
    double Xo[3], Xcam[3];
    for (int i = 0; i < 3; i++) Xo[i] = X[i] - cam->center[i];
    rodrigues_rotate_point(cam->rot, Xo, Xcam);
    proj[0] = Xcam[0] / Xcam[2];
    proj[1] = Xcam[1] / Xcam[2];
    radial_distort(cam->kappa, proj);
    proj[0] = proj[0] * cam->f + cam->x0[0];
    proj[1] = proj[1] * cam->f + cam->x0[1];
}

double ba_objective(int nobs, const Camera *cams, const double *X,
                    const int *obs_cam, const int *obs_pt, const double *feats)
{
    double err = 0.0;
    for (int i = 0; i < nobs; i++) {
        double proj[2];
        project(&cams[obs_cam[i]], &X[3 * obs_pt[i]], proj);
        double ex = proj[0] - feats[2 * i], ey = proj[1] - feats[2 * i + 1];
        err += ex * ex + ey * ey;
    }
    return err;
}
