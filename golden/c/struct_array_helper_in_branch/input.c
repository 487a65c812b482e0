/* A local array of structs a helper updates in one branch of a while loop: the reverse sweep
   keeps a copy of it made in that branch only, declared as the structs (P *), read as numbers
   (main emitted pa_before_upd[e], a P, stored into a double: gcc refused it). */
typedef struct { double k; double c; } P;
static void upd(P *p, double x) { p->k = p->k * 0.5 + x; p->c += p->k * x; }
double f(const double *x, int n) {
    P pa[1] = {{1.0, 0.0}};
    int i = 0;
    while (i < n) {
        if (x[i] > 0.0) pa[0].c += x[i]; else upd(pa, x[i]);
        i++;
    }
    return pa[0].k * pa[0].c;
}
