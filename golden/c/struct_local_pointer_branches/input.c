/* Pointers to a local struct (P *q = &p, P *r = &p in a loop) written through in branches of a
   while loop, a do-while and a for loop, and passed to helpers that write it: one struct. */
typedef struct { double k; double c; } P;
static void upd(P *p, double x) { p->k = p->k * 0.5 + x; p->c += p->k * x; }
static double val(const P *p) { return p->k * p->c; }
double f(const double *x, int n) {
    P p = {1.0, 0.0};
    P *q = &p;
    int i = 0;
    while (i < n) {
        if (x[i] > 0.0) q->c += x[i]; else upd(q, x[i]);
        i++;
    }
    do { upd(&p, q->c); } while (q->k > 100.0);
    double s = 0.0;
    for (int j = 0; j < n; j++) {
        P *r = &p;
        if (j % 2) { r->k *= x[j]; } else { upd(r, x[j]); }
        s += val(r) + val(q);
    }
    return s + val(&p);
}
