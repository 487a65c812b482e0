/* Integer bit operations as numerical code uses them to index: every compound assignment
   (<<= >>= &= |= ^= %=), masks and shifts by variables, xor to pair elements (i ^ 1), a
   complement (~), and a Gray code walk. They act on integers only, so the gradient
   recomputes them where it needs the indices. */
#define MASK 6

double bit_gather(const double *x, int n, int shift)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        int partner = i ^ 1;
        int gray = i ^ (i >> 1);
        int hi = (i & MASK) >> shift;
        int k = i;
        k <<= shift;
        k >>= shift;
        k |= 1;
        k &= n - 1;
        k ^= partner & 1;
        k %= n;
        int low = ~(~i | 1) + 1;
        if (partner < n) {
            s += x[partner] * x[i];
        }
        s += x[gray % n] * 0.5 + x[hi % n] - x[k] * x[low % n];
    }
    return s;
}
