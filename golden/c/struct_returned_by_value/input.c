#include <math.h>

typedef struct {
    double x, y, z;
} Vec3;

static Vec3 vsub(Vec3 a, Vec3 b)
{
    Vec3 r = {a.x - b.x, a.y - b.y, a.z - b.z};
    return r;
}

static Vec3 cross(Vec3 a, Vec3 b)
{
    Vec3 r;
    r.x = a.y * b.z - a.z * b.y;
    r.y = a.z * b.x - a.x * b.z;
    r.z = a.x * b.y - a.y * b.x;
    return r;
}

/* The one of a and b with the larger first coordinate: a struct returned from a branch. */
static Vec3 larger(Vec3 a, Vec3 b)
{
    if (a.x > b.x)
        return a;
    return b;
}

/* The summed lengths of the normals of a triangle strip (points x, y, z in a flat array), plus a
   small term of the larger of each normal and its first edge. Small vector helpers return their
   results by value, as such C is written. */
double strip_normals(const double *p, int n)
{
    double s = 0.0;
    for (int i = 0; i + 2 < n; i++) {
        Vec3 a = {p[3 * i], p[3 * i + 1], p[3 * i + 2]};
        Vec3 b = {p[3 * i + 3], p[3 * i + 4], p[3 * i + 5]};
        Vec3 c = {p[3 * i + 6], p[3 * i + 7], p[3 * i + 8]};
        Vec3 u = vsub(b, a);
        Vec3 v = vsub(c, a);
        Vec3 nrm = cross(u, v);
        Vec3 m = larger(nrm, u);
        s += sqrt(nrm.x * nrm.x + nrm.y * nrm.y + nrm.z * nrm.z) + 0.1 * m.y;
    }
    return s;
}
