/* Least-norm solve of a small fixed-size system by modified Gram-Schmidt
 * QR: #define'd extents, 2-D parameters A[N][N], local Q and R. */
#include <math.h>

#define N 4

static void mgs_qr(double A[N][N], double Q[N][N], double R[N][N])
{
    int i, j, k;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            Q[i][j] = A[i][j];
            R[i][j] = 0.0;
        }
    for (k = 0; k < N; k++) {
        double nrm = 0.0;
        for (i = 0; i < N; i++) nrm += Q[i][k] * Q[i][k];
        R[k][k] = sqrt(nrm);
        for (i = 0; i < N; i++) Q[i][k] /= R[k][k];
        for (j = k + 1; j < N; j++) {
            double d = 0.0;
            for (i = 0; i < N; i++) d += Q[i][k] * Q[i][j];
            R[k][j] = d;
            for (i = 0; i < N; i++) Q[i][j] -= d * Q[i][k];
        }
    }
}

static void backsub(double R[][N], const double *c, double *x)
{
    for (int i = N - 1; i >= 0; i--) {
        double s = c[i];
        for (int j = i + 1; j < N; j++) s -= R[i][j] * x[j];
        x[i] = s / R[i][i];
    }
}

double qr_solve_norm(double A[N][N], const double b[N])
{
    double Q[N][N], R[N][N], c[N], x[N];
    mgs_qr(A, Q, R);
    for (int j = 0; j < N; j++) {
        c[j] = 0.0;
        for (int i = 0; i < N; i++) c[j] += Q[i][j] * b[i];
    }
    backsub(R, c, x);
    double s = 0.0;
    for (int i = 0; i < N; i++) s += x[i] * x[i];
    return s;
}
