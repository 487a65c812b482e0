#include <math.h>

/* Counters that walk packed storage: `at` steps through a lower triangle stored column by
 * column (one element per inner iteration, the inner loop's length changing with i), and `k`
 * through rows of `m` weights each, two at a time. */
double packed_counters(int n, int m, const double *ltri, const double *x, const double *w) {
    double s = 0.0;
    int at = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            s += ltri[at] * x[i] * x[j];
            at++;
        }
    int k = 0;
    for (int r = n - 1; r >= 0; r -= 2) {
        for (int c = 0; c < m; c++)
            s += sin(w[k + c] * x[r]);
        k += m;
    }
    return s;
}
