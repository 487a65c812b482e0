/* Kalman filter log-likelihood of a bivariate linear-Gaussian state-space
 * model (x_t = F x_{t-1} + w, y_t = x_t + v), linmath.h-style fixed-size
 * matrix types and a hand-written 2x2 inverse. */
#include <math.h>

#define LOG2PI 1.8378770664093453

typedef double vec2[2];
typedef double mat2[2][2];

static void mat2_mul(mat2 C, const mat2 A, const mat2 B)
{
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            C[i][j] = A[i][0] * B[0][j] + A[i][1] * B[1][j];
}

/* C = A * B^T */
static void mat2_mul_bt(mat2 C, const mat2 A, const mat2 B)
{
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            C[i][j] = A[i][0] * B[j][0] + A[i][1] * B[j][1];
}

static void mat2_mul_vec2(vec2 r, const mat2 M, const vec2 v)
{
    r[0] = M[0][0] * v[0] + M[0][1] * v[1];
    r[1] = M[1][0] * v[0] + M[1][1] * v[1];
}

/* returns the determinant; Ainv is left untouched when A is singular */
static double mat2_invert(mat2 Ainv, const mat2 A)
{
    double det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
    if (det == 0.0) return 0.0;
    double id = 1.0 / det;
    Ainv[0][0] = A[1][1] * id;
    Ainv[0][1] = -A[0][1] * id;
    Ainv[1][0] = -A[1][0] * id;
    Ainv[1][1] = A[0][0] * id;
    return det;
}

double kalman_loglik(int T, const double y[][2], const double theta[4], double q, double r,
                     const double x0[2])
{
    mat2 F = {{theta[0], theta[1]}, {theta[2], theta[3]}};
    mat2 P = {{1.0, 0.0}, {0.0, 1.0}};
    vec2 x = {x0[0], x0[1]};
    double ll = 0.0;

    for (int t = 0; t < T; t++) {
        vec2 xp, v, Kv;
        mat2 FP, Pp, S, Si, K;

        /* predict */
        mat2_mul_vec2(xp, F, x);
        mat2_mul(FP, F, P);
        mat2_mul_bt(Pp, FP, F);
        Pp[0][0] += q;
        Pp[1][1] += q;

        /* innovation and its covariance (H = I) */
        v[0] = y[t][0] - xp[0];
        v[1] = y[t][1] - xp[1];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                S[i][j] = Pp[i][j] + (i == j ? r : 0.0);
        double det = mat2_invert(Si, S);
        if (det <= 0.0)
            return -INFINITY;

        double m = 0.0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                m += v[i] * Si[i][j] * v[j];
        ll -= 0.5 * (2.0 * LOG2PI + log(det) + m);

        /* update */
        mat2_mul(K, Pp, Si);
        mat2_mul_vec2(Kv, K, v);
        x[0] = xp[0] + Kv[0];
        x[1] = xp[1] + Kv[1];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                P[i][j] = Pp[i][j] - (K[i][0] * Pp[0][j] + K[i][1] * Pp[1][j]);
    }
    return ll;
}
