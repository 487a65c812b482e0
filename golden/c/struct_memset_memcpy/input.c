/* memset and memcpy of whole local structs held as their members (memset(&p, 0, sizeof p),
   memcpy(&t, r, sizeof(P)) through a pointer to p, memcpy(r, &t, sizeof *r) back, and from a
   struct parameter, memcpy(&a, src, sizeof a)): member by member, as p = *src. */
#include <string.h>
typedef struct { double k; double c[2]; int n; } P;
typedef struct { double x; double y; } Q;
static double g(const P *p) { return p->k * (p->c[0] - p->c[1]) * p->n; }
static double h(const Q *q) { return q->x * q->y; }
double f(const double *x, const Q *src, int m) {
    P p;
    memset(&p, 0, sizeof p);
    p.k = x[0];
    p.n = m;
    P *r = &p;
    double s = 0.0;
    for (int i = 0; i < 3; i++) {
        P t;
        memcpy(&t, r, sizeof(P));
        t.c[0] += x[i];
        t.c[1] -= x[i] * x[i];
        memcpy(r, &t, sizeof *r);
        s += g(&p);
    }
    Q a;
    memcpy(&a, src, sizeof a);
    a.x *= x[1];
    return s + h(&a);
}
