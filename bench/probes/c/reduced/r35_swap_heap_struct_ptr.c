/* p35: two heap structs swapped by pointer (ping-pong states) */
#include <stdlib.h>
typedef struct { double a[4]; } S;
double f(const double *x, int n)
{
    S *cur = malloc(sizeof(S)), *nxt = malloc(sizeof(S));
    for (int i = 0; i < 4; i++) cur->a[i] = x[i];
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < 4; i++) nxt->a[i] = cur->a[i] * cur->a[(i + 1) % 4];
        S *t = cur; cur = nxt; nxt = t;
    }
    double s = cur->a[0];
    free(cur);
    free(nxt);
    return s;
}
