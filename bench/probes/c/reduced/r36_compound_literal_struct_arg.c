/* p36b: a struct of options passed as a compound literal (C99 6.5.2.5) */
typedef struct { double scale; int kind; } Opts;
static double rho(const Opts *o, double r) { return o->kind ? o->scale * r * r : r; }
double f(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += rho(&(Opts){.scale = 0.5, .kind = 1}, x[i]);
    return s;
}
