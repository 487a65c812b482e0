/* C99 compound literals: a struct of options passed by address, a struct passed by value, a
   table of weights, each an unnamed local the statement makes every time it runs. */
typedef struct {
    double scale;
    int kind;
} Opts;

typedef struct {
    double a, b;
} P;

static double rho(const Opts *o, double r)
{
    return o->kind ? o->scale * r * r : r;
}

static double g(P p, double x)
{
    return p.a * x + p.b * x * x;
}

double f(const double *x, int n)
{
    const double *w = (const double[]){0.25, 0.5, 0.25};
    double s = 0.0;
    for (int i = 1; i < n - 1; i++)
        s += rho(&(Opts){.scale = 0.5, .kind = 1}, w[0] * x[i - 1] + w[1] * x[i] + w[2] * x[i + 1]);
    for (int i = 0; i < n; i++) {
        s += g((P){.a = x[0], .b = 2.0}, x[i]);
    }
    return s;
}
