/* Walking an array of structs with a pointer: b < end, b++, b->w. */
struct Term {
    double w;
    double c;
};

double weighted(const struct Term *terms, const double *x, int n)
{
    double s = 0.0;
    const struct Term *end = terms + n;
    for (const struct Term *t = terms; t < end; t++) {
        s += t->w * x[t - terms] + t->c * x[t - terms] * x[t - terms];
    }
    return s;
}
