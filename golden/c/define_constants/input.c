/* #define constants: the array size and a factor used in an expression. */
#define N 5
#define DECAY 0.8

double discounted(const double *x)
{
    double s = 0.0;
    double w = 1.0;
    for (int i = 0; i < N; i++) {
        s += w * x[i] * x[i];
        w = w * DECAY;
    }
    return s / N;
}
