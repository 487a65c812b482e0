/* Linear-triangle FEM stiffness assembly for -div(k grad u) with a
 * per-element conductivity; energy 1/2 u^T K u - f^T u. */
#include <stdlib.h>
#include <math.h>

static double element_stiffness(const double xy[3][2], double kappa, double ke[3][3])
{
    double b[3], c[3];
    b[0] = xy[1][1] - xy[2][1]; c[0] = xy[2][0] - xy[1][0];
    b[1] = xy[2][1] - xy[0][1]; c[1] = xy[0][0] - xy[2][0];
    b[2] = xy[0][1] - xy[1][1]; c[2] = xy[1][0] - xy[0][0];
    double area = 0.5 * fabs(b[0] * c[1] - b[1] * c[0]);
    for (int a = 0; a < 3; a++)
        for (int q = 0; q < 3; q++)
            ke[a][q] = kappa * (b[a] * b[q] + c[a] * c[q]) / (4.0 * area);
    return area;
}

double fem_energy(int nnodes, const double *coords, int nelem, const int *tri,
                  const double *kappa, const double *u, const double *f)
{
    double *K = calloc((size_t)nnodes * nnodes, sizeof(double));
    double *F = calloc((size_t)nnodes, sizeof(double));
    for (int e = 0; e < nelem; e++) {
        const int *conn = &tri[3 * e];
        double xy[3][2], ke[3][3];
        for (int a = 0; a < 3; a++) {
            xy[a][0] = coords[2 * conn[a]];
            xy[a][1] = coords[2 * conn[a] + 1];
        }
        double area = element_stiffness(xy, kappa[e], ke);
        for (int a = 0; a < 3; a++) {
            for (int q = 0; q < 3; q++)
                K[conn[a] * nnodes + conn[q]] += ke[a][q];
            F[conn[a]] += f[e] * area / 3.0;
        }
    }
    double en = 0.0;
    for (int i = 0; i < nnodes; i++) {
        double Ku = 0.0;
        for (int j = 0; j < nnodes; j++) Ku += K[i * nnodes + j] * u[j];
        en += 0.5 * u[i] * Ku - F[i] * u[i];
    }
    free(K);
    free(F);
    return en;
}
