#include <math.h>

/* A helper overwrites its work array in a loop whose trip count depends on the data. */
static void relax(int n, const double *w, double *u) {
    for (int j = 0; j < n; j++)
        u[j] = tanh(w[j] * u[j] + 0.1);
}

double settle(int n, const double *w, double *u) {
    double change = 1.0;
    int steps = 0;
    while (change > 1e-3 && steps < 20) {
        double before = u[0];
        relax(n, w, u);
        change = fabs(u[0] - before);
        steps++;
    }
    double s = 0.0;
    for (int j = 0; j < n; j++)
        s += u[j] * u[j];
    return s;
}
