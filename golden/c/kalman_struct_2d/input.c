#include <math.h>
#include <string.h>

/* A Kalman filter's state as numerical C keeps it: the mean and the covariance in one struct,
 * here for a constant-acceleration model (position, velocity, acceleration) observed through
 * its position. kalman_nll is the negative log-likelihood of the observations, whose gradient
 * with respect to the noise levels, the velocity's damping and the initial state fits them. */

#define NS 3

typedef struct {
    double x[NS];
    double P[NS][NS];
} kstate;

static void mat_mul(const double A[NS][NS], const double B[NS][NS], double C[NS][NS])
{
    for (int i = 0; i < NS; i++)
        for (int j = 0; j < NS; j++) {
            double acc = 0.0;
            for (int k = 0; k < NS; k++)
                acc += A[i][k] * B[k][j];
            C[i][j] = acc;
        }
}

/* C = A B^T */
static void mat_mul_bt(const double A[NS][NS], const double B[NS][NS], double C[NS][NS])
{
    for (int i = 0; i < NS; i++)
        for (int j = 0; j < NS; j++) {
            double acc = 0.0;
            for (int k = 0; k < NS; k++)
                acc += A[i][k] * B[j][k];
            C[i][j] = acc;
        }
}

/* x = F x, P = F P F^T + q I */
static void kf_predict(kstate *s, const double F[NS][NS], double q)
{
    double x[NS], FP[NS][NS];
    for (int i = 0; i < NS; i++) {
        x[i] = 0.0;
        for (int k = 0; k < NS; k++)
            x[i] += F[i][k] * s->x[k];
    }
    mat_mul(F, s->P, FP);
    mat_mul_bt(FP, F, s->P);
    for (int i = 0; i < NS; i++) {
        s->x[i] = x[i];
        s->P[i][i] += q;
    }
}

/* The update of the predicted state by one observation y = H x + noise of variance r, into
 * post; its term of the negative log-likelihood. */
static double kf_update(const kstate *prior, kstate *post, const double H[NS], double r, double y)
{
    double PH[NS];
    double S = r, innov = y;
    for (int i = 0; i < NS; i++) {
        PH[i] = 0.0;
        for (int j = 0; j < NS; j++)
            PH[i] += prior->P[i][j] * H[j];
        innov -= H[i] * prior->x[i];
    }
    for (int i = 0; i < NS; i++)
        S += H[i] * PH[i];
    for (int i = 0; i < NS; i++) {
        double K = PH[i] / S;
        post->x[i] = prior->x[i] + K * innov;
        for (int j = 0; j < NS; j++)
            post->P[i][j] = prior->P[i][j] - K * PH[j];
    }
    return 0.5 * (log(S) + innov * innov / S);
}

/* theta: the process and measurement noise (as standard deviations), the velocity's damping,
 * the initial position and the initial position variance. */
double kalman_nll(const double *theta, const double *ys, int T)
{
    const double dt = 0.1;
    double F[NS][NS] = {{1.0, dt, 0.5 * dt * dt}, {0.0, theta[2], dt}, {0.0, 0.0, 1.0}};
    const double H[NS] = {1.0, 0.0, 0.0};
    double P0[NS][NS] = {{theta[4] * theta[4], 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    kstate s = {{theta[3], 0.0, 0.0}, {{0.0}}};
    memcpy(s.P, P0, sizeof s.P);
    double nll = 0.0;
    for (int t = 0; t < T; t++) {
        kf_predict(&s, F, theta[0] * theta[0]);
        kstate prior = s;
        nll += kf_update(&prior, &s, H, theta[1] * theta[1], ys[t]);
    }
    return nll;
}
