#include <math.h>

/* A loop counted by a double (t from 0 while t < T, by dt): a while loop whose trip count
   depends on the data, with an int beside it; and a float compared with an int. */
double integrate(const double *c, double T, double dt, int m)
{
    double s = 0.0;
    int k = 0;
    for (double t = 0.0; t < T; t += dt) {
        s += dt * (c[k % m] * sin(t) + c[(k + 1) % m] * t);
        k++;
    }
    if (s > m) {
        s = s * 0.5;
    }
    return s;
}
