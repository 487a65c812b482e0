/*
 * Bundle adjustment: sum of squared reprojection residuals.
 *
 * cams[ncam*11], per camera: angle-axis rotation r (3), centre C (3), focal length f (1),
 * principal point x0 (2), radial distortion k1, k2 (2).
 * pts[npts*3] world points; observation i sees point pt_idx[i] from camera cam_idx[i]
 * at obs[2i], obs[2i+1].
 *
 * For one observation: X_c = R(r) (X - C) (Rodrigues), p = X_c[0:2] / X_c[2],
 * proj = f (1 + k1 |p|^2 + k2 |p|^4) p + x0, residual = proj - obs.
 * When |r|^2 is tiny the rotation is replaced by its first-order form X + r x X,
 * which avoids dividing by theta = 0 (and the infinite derivative of sqrt at 0).
 */
#include <math.h>
#include <stdlib.h>

#define NCAMPAR 11

/* Squared reprojection error of point p seen by the camera whose 11 parameters start at cam. */
static double reproj_sq_error(const double *cam, const double *pts, int p, double u, double v)
{
    double xc[3];
    for (int j = 0; j < 3; j++) {
        xc[j] = pts[p * 3 + j] - cam[3 + j];
    }

    double x0;
    double x1;
    double x2;
    double sqtheta = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2];
    if (sqtheta > 1e-12) {
        double theta = sqrt(sqtheta);
        double ct = cos(theta);
        double st = sin(theta);
        double w0 = cam[0] / theta;
        double w1 = cam[1] / theta;
        double w2 = cam[2] / theta;
        double wdotx = w0 * xc[0] + w1 * xc[1] + w2 * xc[2];
        double t = wdotx * (1.0 - ct);
        x0 = xc[0] * ct + (w1 * xc[2] - w2 * xc[1]) * st + w0 * t;
        x1 = xc[1] * ct + (w2 * xc[0] - w0 * xc[2]) * st + w1 * t;
        x2 = xc[2] * ct + (w0 * xc[1] - w1 * xc[0]) * st + w2 * t;
    } else {
        x0 = xc[0] + cam[1] * xc[2] - cam[2] * xc[1];
        x1 = xc[1] + cam[2] * xc[0] - cam[0] * xc[2];
        x2 = xc[2] + cam[0] * xc[1] - cam[1] * xc[0];
    }

    double px = x0 / x2;
    double py = x1 / x2;
    double rsq = px * px + py * py;
    double dist = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    double ex = cam[6] * dist * px + cam[7] - u;
    double ey = cam[6] * dist * py + cam[8] - v;
    return ex * ex + ey * ey;
}

double ba_objective(int nobs, const double *cams, const double *pts, const int *cam_idx, const int *pt_idx,
                    const double *obs)
{
    double s = 0.0;
    for (int i = 0; i < nobs; i++) {
        int c = cam_idx[i];
        int p = pt_idx[i];
        s += reproj_sq_error(&cams[c * NCAMPAR], pts, p, obs[2 * i], obs[2 * i + 1]);
    }
    return s;
}
