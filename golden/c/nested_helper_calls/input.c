/* One helper called twice in one expression, one call the other's argument: two adjoints
   of call results, each in its own variable. */
static double h(double a, double b)
{
    return a * b + a;
}

void f(double *y)
{
    y[0] = h(2.0, h(y[2], 3.0));
    y[1] = h(h(y[1], y[0]), h(y[2], y[1]));
}
