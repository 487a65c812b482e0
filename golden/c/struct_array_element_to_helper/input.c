/* One struct of an array of them handed to helpers that write it: the address of a number
   member (&vs[i].s) to an out-parameter, and the struct itself (&vs[i]) to a function that
   updates a number member and sets an integer one. */
typedef struct {
    int n;
    double *data;
    double s;
} Vec;

static void put(double *y, double v)
{
    *y = *y * v;
}

static void bump(Vec *v, double a)
{
    v->s = v->s * a + v->data[0];
    v->n = 2;
}

double f(Vec *vs, int m, const double *x)
{
    double t = 0.0;
    for (int i = 0; i < m; i++) {
        put(&vs[i].s, x[i]);
        bump(&vs[i], x[i]);
        t += vs[i].s * vs[i].n;
    }
    return t;
}
