/* p36b, by value: a compound literal struct passed to a helper taking the struct */
typedef struct { double a, b; } P;
static double g(P p, double x) { return p.a * x + p.b * x * x; }
double f(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += g((P){.a = x[0], .b = 2.0}, x[i]);
    return s;
}
