/* An array of structs: bodies[i].pos[c] and bodies[i].m. */
#include <math.h>

struct Body {
    double pos[3];
    double m;
};

double potential(const struct Body *bodies, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            double r2 = 0.0;
            for (int c = 0; c < 3; c++) {
                double d = bodies[i].pos[c] - bodies[j].pos[c];
                r2 += d * d;
            }
            e -= bodies[i].m * bodies[j].m / sqrt(r2);
        }
    }
    return e;
}
