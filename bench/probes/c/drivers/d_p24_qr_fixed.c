#include "harness.h"
#define N 4
double qr_solve_norm(double A[N][N], const double b[N]);
void grad_qr_solve_norm(double A[N][N], double d_A[N][N], const double b[N], double d_b[N],
                        double d_return);
static int np(void) { return N * N + N; }
static void init(double *p) { fill(p, np(), -1, 1); for (int i = 0; i < N; i++) p[i * N + i] += 3.0; }
static double eval(const double *p)
{
    double A[N][N]; memcpy(A, p, sizeof A);
    return qr_solve_norm(A, p + N * N);
}
static void grad(const double *p, double *g)
{
    double A[N][N]; memcpy(A, p, sizeof A);
    grad_qr_solve_norm(A, (double (*)[N])g, p + N * N, g + N * N, 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
