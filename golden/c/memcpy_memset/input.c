#include <stdlib.h>
#include <string.h>

/* v[0..n-2] = v[1..n-1] (overlapping parts of one array), then a zero at the end. */
static void shift_left(double *v, int n)
{
    memmove(v, v + 1, (n - 1) * sizeof(double));
    v[n - 1] = 0.0;
}

/* memcpy into a work array, memset of an output, memmove inside a helper called in a loop. */
double decay(const double *x, double *state, int n)
{
    double *work = malloc(n * sizeof(double));
    memcpy(work, x, n * sizeof(double));
    memset(state, 0, n * sizeof(double));
    double s = 0.0;
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < n; i++)
            state[i] += work[i] * work[i] * (t + 1);
        shift_left(work, n);
        s += state[0] * x[t];
    }
    free(work);
    return s;
}
