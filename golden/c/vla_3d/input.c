#include <math.h>

/* A contraction of an n x m x k tensor with a vector, through tanh: out[i][j] = tanh(T[i][j] . w). */
void contract(int n, int m, int k, const double T[n][m][k], const double w[k], double out[n][m])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            double s = 0.0;
            for (int l = 0; l < k; l++) {
                s += T[i][j][l] * w[l];
            }
            out[i][j] = tanh(s);
        }
    }
}
