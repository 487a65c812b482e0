#include "harness.h"
#define GN 3               /* 3 x 3 nodes */
#define NNODE (GN * GN)
#define NEL (2 * (GN - 1) * (GN - 1))
double fem_energy(int nnodes, const double *coords, int nelem, const int *tri,
                  const double *kappa, const double *u, const double *f);
void grad_fem_energy(int nnodes, const double *coords, double *d_coords, int nelem, const int *tri,
                     const double *kappa, double *d_kappa, const double *u, double *d_u,
                     const double *f, double *d_f, double d_return);
static int TRI[3 * NEL];
#define OK_ (2 * NNODE)
#define OU (OK_ + NEL)
#define OF (OU + NNODE)
static int np(void) { return OF + NEL; }
static void init(double *p)
{
    int e = 0;
    for (int i = 0; i + 1 < GN; i++)
        for (int j = 0; j + 1 < GN; j++) {
            int a = i * GN + j, b = a + 1, c = a + GN, d = c + 1;
            TRI[3 * e] = a; TRI[3 * e + 1] = b; TRI[3 * e + 2] = d; e++;
            TRI[3 * e] = a; TRI[3 * e + 1] = d; TRI[3 * e + 2] = c; e++;
        }
    for (int i = 0; i < GN; i++)
        for (int j = 0; j < GN; j++) {
            p[2 * (i * GN + j)] = j + urand(-0.15, 0.15);
            p[2 * (i * GN + j) + 1] = i + urand(-0.15, 0.15);
        }
    fill(p + OK_, NEL, 0.5, 2.0);
    fill(p + OU, NNODE, -1, 1);
    fill(p + OF, NEL, -1, 1);
}
static double eval(const double *p) { return fem_energy(NNODE, p, NEL, TRI, p + OK_, p + OU, p + OF); }
static void grad(const double *p, double *g)
{
    grad_fem_energy(NNODE, p, g, NEL, TRI, p + OK_, g + OK_, p + OU, g + OU, p + OF, g + OF, 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
