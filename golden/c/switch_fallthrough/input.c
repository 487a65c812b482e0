#include <math.h>

/* A switch inside a loop picks each element's treatment: cases on enum-like #define
   constants and on an integer expression (k % 4), labels sharing one body, fall-through
   from one case into the next, a default that is not last, and break out of the switch. */
#define LINEAR 0
#define SQUARE 1
#define SMOOTH 2

double mixed_terms(const double *x, const int *kind, int n)
{
    double s = 0.0;
    for (int k = 0; k < n; k++) {
        double v = x[k];
        switch (kind[k]) {
        case SQUARE:
            v = v * v; /* a square is scaled as well: */
            /* falls through */
        case LINEAR:
            s += 2.0 * v;
            break;
        default:
            s -= v;
            /* falls through */
        case SMOOTH:
        case SMOOTH + 1:
            s += tanh(v);
        }
        switch (k % 4) {
        case 0:
            s += 0.5 * x[k];
            break;
        case 3:
            s *= 0.9;
            break;
        }
    }
    return s;
}
