#include <math.h>

/* Struct calls used where they are written: passed straight on to another call, and a member
   read off a call (as small vector code is written). */
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

static double dot(Vec3 a, Vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

double strip_area(const double *p, int n)
{
    double s = 0.0;
    for (int i = 0; i + 2 < n; i++) {
        Vec3 a = {p[3 * i], p[3 * i + 1], p[3 * i + 2]};
        Vec3 b = {p[3 * i + 3], p[3 * i + 4], p[3 * i + 5]};
        Vec3 c = {p[3 * i + 6], p[3 * i + 7], p[3 * i + 8]};
        Vec3 nrm = cross(vsub(b, a), vsub(c, a));
        s += sqrt(dot(nrm, nrm)) + 0.1 * cross(nrm, vsub(c, b)).z;
    }
    return s;
}
