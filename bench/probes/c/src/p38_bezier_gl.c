/* Length and bending energy of a piecewise cubic Bezier path, by 5-point
 * Gauss-Legendre quadrature on each segment (nodes and weights in static
 * const tables at file scope). Control points are an array of 2-D point
 * structs, segment s using ctrl[3s .. 3s+3]; helpers return points by value
 * or fill them through pointers. Objective: (L - Ltarget)^2 + alpha * E_bend. */
#include <math.h>

typedef struct { double x, y; } Point2;

static const double GL_NODE[5] = {
    -0.9061798459386640, -0.5384693101056831, 0.0,
     0.5384693101056831,  0.9061798459386640
};
static const double GL_WEIGHT[5] = {
    0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
    0.4786286704993665, 0.2369268850561891
};

/* first derivative of the cubic Bezier with control points P[0..3] */
static Point2 bezier_d1(const Point2 *P, double t)
{
    double s = 1.0 - t;
    Point2 d = {
        .x = 3.0 * (s * s * (P[1].x - P[0].x) + 2.0 * s * t * (P[2].x - P[1].x) + t * t * (P[3].x - P[2].x)),
        .y = 3.0 * (s * s * (P[1].y - P[0].y) + 2.0 * s * t * (P[2].y - P[1].y) + t * t * (P[3].y - P[2].y)),
    };
    return d;
}

static void bezier_d2(const Point2 *P, double t, Point2 *out)
{
    double s = 1.0 - t;
    out->x = 6.0 * (s * (P[2].x - 2.0 * P[1].x + P[0].x) + t * (P[3].x - 2.0 * P[2].x + P[1].x));
    out->y = 6.0 * (s * (P[2].y - 2.0 * P[1].y + P[0].y) + t * (P[3].y - 2.0 * P[2].y + P[1].y));
}

static double segment_quad(const Point2 *P, double *bend)
{
    double len = 0.0, eb = 0.0;
    for (int q = 0; q < 5; q++) {
        double t = 0.5 * (GL_NODE[q] + 1.0);
        Point2 d1 = bezier_d1(P, t), d2;
        bezier_d2(P, t, &d2);
        double speed = hypot(d1.x, d1.y);
        double cross = d1.x * d2.y - d1.y * d2.x;
        double kappa = cross / (speed * speed * speed);
        len += 0.5 * GL_WEIGHT[q] * speed;
        eb += 0.5 * GL_WEIGHT[q] * kappa * kappa * speed;
    }
    *bend += eb;
    return len;
}

double path_objective(int nseg, const Point2 *ctrl, double Ltarget, double alpha)
{
    double L = 0.0, E = 0.0;
    for (int s = 0; s < nseg; s++)
        L += segment_quad(&ctrl[3 * s], &E);
    return (L - Ltarget) * (L - Ltarget) + alpha * E;
}
