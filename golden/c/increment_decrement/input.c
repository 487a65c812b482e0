/* Pre/post ++ and -- as statements: two indices walking towards each other. */
double fold_product(const double *x, int n)
{
    double s = 0.0;
    int lo = 0;
    int hi = n - 1;
    for (int k = 0; k < n / 2; ++k) {
        s += x[lo] * x[hi];
        lo++;
        --hi;
    }
    return s;
}
