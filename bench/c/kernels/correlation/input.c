#include <math.h>

/* The correlation matrix, with a floor on small standard deviations. */
void correlation(int m, int n, double data[n][m], double corr[m][m], double mean[m], double stddev[m])
{
    double eps = 0.1;
    for (int j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (int i = 0; i < n; i++)
            mean[j] += data[i][j];
        mean[j] /= n;
    }
    for (int j = 0; j < m; j++) {
        stddev[j] = 0.0;
        for (int i = 0; i < n; i++)
            stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
        stddev[j] /= n;
        stddev[j] = sqrt(stddev[j]);
        stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            data[i][j] -= mean[j];
            data[i][j] /= sqrt((double)n) * stddev[j];
        }
    for (int i = 0; i < m - 1; i++) {
        corr[i][i] = 1.0;
        for (int j = i + 1; j < m; j++) {
            corr[i][j] = 0.0;
            for (int k = 0; k < n; k++)
                corr[i][j] += (data[k][i] * data[k][j]);
            corr[j][i] = corr[i][j];
        }
    }
    corr[m - 1][m - 1] = 1.0;
}
