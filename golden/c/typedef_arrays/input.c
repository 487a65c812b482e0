#include <string.h>

/* Small vectors and matrices as linmath.h-style typedefs of arrays: a typedef of a typedef
   (mat3 rows are vec3), parameters, locals with initializers, a struct member, sizeof and
   memcpy of one, and a helper writing its result into a vec3. */
typedef double vec3[3];
typedef vec3 mat3[3];

typedef struct {
    vec3 pos;
    double mass;
} Body;

static void mat3_mul_vec3(vec3 out, const mat3 M, const vec3 v)
{
    for (int i = 0; i < 3; i++) {
        out[i] = 0.0;
        for (int j = 0; j < 3; j++)
            out[i] += M[i][j] * v[j];
    }
}

static double vec3_dot(const vec3 a, const vec3 b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double energy(const mat3 K, const double *q, int n)
{
    double e = 0.0;
    for (int k = 0; k < n; k++) {
        Body b = {{q[3 * k], q[3 * k + 1], q[3 * k + 2]}, 1.0 + k};
        vec3 p, f;
        memcpy(p, b.pos, sizeof(vec3));
        mat3_mul_vec3(f, K, p);
        mat3 S = {{1.0, 0.0, 0.0}, {0.0, 2.0, 0.0}, {0.0, 0.0, 0.5}};
        vec3 g;
        mat3_mul_vec3(g, S, f);
        e += 0.5 * b.mass * vec3_dot(p, g);
    }
    return e;
}
