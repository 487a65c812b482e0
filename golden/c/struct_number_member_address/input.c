#include <math.h>

typedef struct { double gamma; int m; } Wishart;
typedef struct { int n; double scale; double *data; } Series;

/* Adds the log-sum of a series into *acc: an out-parameter. */
static void add_logsum(double *acc, const double *x, int n)
{
    for (int i = 0; i < n; i++)
        *acc += log(1.0 + x[i] * x[i]);
}

static double squared(const double *v)
{
    return *v * *v;
}

/* The address of a number member handed to a helper, as C code does with out-parameters: a
   member of a local struct (&acc.gamma), of a struct passed by value (&w.gamma), and of a const
   struct read through a pointer (&S->scale, to a const double *). */
double objective(const Series *S, Wishart w, const double *x, int n)
{
    Wishart acc = {0.0, 2};
    for (int k = 0; k < acc.m; k++)
        add_logsum(&acc.gamma, x, n);
    add_logsum(&w.gamma, S->data, S->n);
    return acc.gamma * w.gamma + squared(&S->scale) * w.m;
}
