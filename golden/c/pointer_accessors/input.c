/* Functions that return a pointer into an argument (accessors), called where the pointer is used:
   each reads as the expression it returns. */
static double *row(double *A, int m, int i)
{
    return A + i * m;
}

static const double *either(const double *a, const double *b, int first)
{
    return first ? a : b;
}

double scaled_rows(double *W, const double *u, const double *v, int n)
{
    double s = 0.0;
    for (int k = 0; k < n; k++) {
        double *r = row(W, n, k);
        const double *c = either(u, v, k % 2 == 0);
        for (int j = 0; j < n; j++) {
            r[j] *= c[j];
            s += r[j] * r[j];
        }
    }
    return s;
}
