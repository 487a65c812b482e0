/* Jumps inside a switch: continue inside a case (the loop's next iteration), a break in
   the middle of a case, return from a case inside a loop, and a function that ends in a
   switch whose every case returns. */
#define CLIP 2

static double weight(int mode, double v)
{
    switch (mode) {
    case 0:
        return v;
    case 1:
        return 0.5 * v * v;
    default:
        return -v;
    }
}

double walk(const double *x, int n, int mode)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        switch (i % 3) {
        case 0:
            if (x[i] < 0.0) {
                continue;
            }
            s += weight(mode, x[i]);
            break;
        case 1:
            s += x[i] * x[i];
            if (s > 3.0) {
                break;
            }
            s += 1.0;
            break;
        case CLIP:
            if (s > 10.0) {
                return s;
            }
            s = s * 0.75 + x[i];
        }
        s += 0.1 * x[i];
    }
    return weight(mode + 1, s);
}
