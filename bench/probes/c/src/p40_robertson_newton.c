/* Robertson's stiff chemical kinetics (3 species), backward Euler with a
 * Newton iteration per step; the 3x3 Newton system is solved by Gaussian
 * elimination with partial pivoting (fabs comparisons, explicit row swaps),
 * written for a fixed N = 3 with local 2-D arrays. Rate constants enter as
 * logarithms. Objective: weighted misfit at observation steps. */
#include <math.h>

#define NSPEC 3
#define NEWTON_MAX 12

static void rober_rhs(const double k[3], const double y[3], double f[3])
{
    f[0] = -k[0] * y[0] + k[2] * y[1] * y[2];
    f[1] = k[0] * y[0] - k[2] * y[1] * y[2] - k[1] * y[1] * y[1];
    f[2] = k[1] * y[1] * y[1];
}

static void rober_jac(const double k[3], const double y[3], double J[3][3])
{
    J[0][0] = -k[0]; J[0][1] = k[2] * y[2];                    J[0][2] = k[2] * y[1];
    J[1][0] = k[0];  J[1][1] = -k[2] * y[2] - 2.0 * k[1] * y[1]; J[1][2] = -k[2] * y[1];
    J[2][0] = 0.0;   J[2][1] = 2.0 * k[1] * y[1];               J[2][2] = 0.0;
}

/* solves A x = b in place (A and b destroyed); returns 0, or -1 if singular */
static int gauss_pp(double A[NSPEC][NSPEC], double b[NSPEC], double x[NSPEC])
{
    for (int col = 0; col < NSPEC; col++) {
        int piv = col;
        for (int r = col + 1; r < NSPEC; r++)
            if (fabs(A[r][col]) > fabs(A[piv][col])) piv = r;
        if (A[piv][col] == 0.0) return -1;
        if (piv != col) {
            for (int c = 0; c < NSPEC; c++) {
                double t = A[col][c]; A[col][c] = A[piv][c]; A[piv][c] = t;
            }
            double t = b[col]; b[col] = b[piv]; b[piv] = t;
        }
        for (int r = col + 1; r < NSPEC; r++) {
            double m = A[r][col] / A[col][col];
            for (int c = col; c < NSPEC; c++) A[r][c] -= m * A[col][c];
            b[r] -= m * b[col];
        }
    }
    for (int r = NSPEC - 1; r >= 0; r--) {
        double s = b[r];
        for (int c = r + 1; c < NSPEC; c++) s -= A[r][c] * x[c];
        x[r] = s / A[r][r];
    }
    return 0;
}

double rober_misfit(const double logk[3], const double y0[3], double dt, int nsteps,
                    int every, const double *obs, const double w[3])
{
    double k[3], y[3], yold[3];
    for (int i = 0; i < 3; i++) { k[i] = exp(logk[i]); y[i] = y0[i]; }
    double J = 0.0;
    int iobs = 0;
    for (int n = 1; n <= nsteps; n++) {
        for (int i = 0; i < 3; i++) yold[i] = y[i];
        for (int it = 0; it < NEWTON_MAX; it++) {
            double f[3], Jf[3][3], A[3][3], r[3], dy[3];
            rober_rhs(k, y, f);
            rober_jac(k, y, Jf);
            for (int i = 0; i < 3; i++) {
                r[i] = -(y[i] - yold[i] - dt * f[i]);
                for (int j = 0; j < 3; j++)
                    A[i][j] = (i == j ? 1.0 : 0.0) - dt * Jf[i][j];
            }
            if (gauss_pp(A, r, dy) != 0) break;
            double nrm = 0.0;
            for (int i = 0; i < 3; i++) {
                y[i] += dy[i];
                nrm = fmax(nrm, fabs(dy[i]) / (1e-8 + fabs(y[i])));
            }
            if (nrm < 1e-13) break;
        }
        if (n % every == 0) {
            for (int i = 0; i < 3; i++) {
                double e = (y[i] - obs[3 * iobs + i]) * w[i];
                J += e * e;
            }
            iobs++;
        }
    }
    return J;
}
