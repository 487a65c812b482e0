#include <math.h>

typedef struct {
    double a[4];
    double scale;
} Layer;

/* Two local structs, a pointer to each swapped after every step: the struct a pointer moves to
 * and from lives in memory, read through the pointers and by name (sa.scale). */
double relax(const double *x, double w, int n)
{
    Layer sa, sb = {{0.0}, 1.0};
    sa.scale = w;
    Layer *cur = &sa, *nxt = &sb;
    for (int i = 0; i < 4; i++)
        cur->a[i] = x[i];
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < 4; i++)
            nxt->a[i] = cur->scale * tanh(cur->a[i] + 0.5 * cur->a[(i + 1) % 4]);
        nxt->scale = 0.5 * cur->scale + sb.scale;
        Layer *t = cur;
        cur = nxt;
        nxt = t;
    }
    return cur->a[0] * cur->a[3] + sa.a[1] * sb.scale;
}
