#include <math.h>

/* A local array of structs, initialized, filled in a loop and passed to a helper. */
typedef struct {
    double x, y;
} Point;

static double perimeter(const Point *pts, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        double dx = pts[j].x - pts[i].x, dy = pts[j].y - pts[i].y;
        s += sqrt(dx * dx + dy * dy);
    }
    return s;
}

double quad_perimeter(const double *w)
{
    Point corners[4] = {{0.0, 0.0}, {1.0, 0.0}, {1.0, 1.0}, {0.0, 1.0}};
    for (int i = 0; i < 4; i++) {
        corners[i].x = corners[i].x * w[0] + w[1] * corners[i].y;
        corners[i].y += w[2] * corners[i].x * corners[i].x;
    }
    return perimeter(corners, 4);
}
