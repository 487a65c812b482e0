#include "harness.h"
typedef enum { ACT_IDENTITY, ACT_TANH, ACT_SIGMOID, ACT_SOFTPLUS, ACT_ELU } activation_t;
#define NS 4
#define DD 3
#define HH 5
double mlp_loss(int n, int d, int h, const double *X, const double *t,
                const double *W1, const double *b1, const double *w2, double b2,
                activation_t act1, activation_t act2);
void grad_mlp_loss(int n, int d, int h, const double *X, double *d_X, const double *t, double *d_t,
                   const double *W1, double *d_W1, const double *b1, double *d_b1,
                   const double *w2, double *d_w2, double b2, double *d_b2, activation_t act1,
                   activation_t act2, double d_return);
/* every activation appears in both layers across these configurations */
static const activation_t CF[5][2] = {
    {ACT_TANH, ACT_IDENTITY}, {ACT_SIGMOID, ACT_TANH}, {ACT_SOFTPLUS, ACT_SIGMOID},
    {ACT_ELU, ACT_SOFTPLUS}, {ACT_IDENTITY, ACT_ELU}};
#define OX 0
#define OT (NS * DD)
#define OW1 (OT + NS)
#define OB1 (OW1 + HH * DD)
#define OW2 (OB1 + HH)
#define OB2 (OW2 + HH)
static int np(void) { return OB2 + 1; }
static void init(double *p) { fill(p, np(), -1.0, 1.0); }
static double eval(const double *p)
{
    double s = 0.0;
    for (int c = 0; c < 5; c++)
        s += mlp_loss(NS, DD, HH, p + OX, p + OT, p + OW1, p + OB1, p + OW2, p[OB2], CF[c][0], CF[c][1]);
    return s;
}
static void grad(const double *p, double *g)
{
    for (int c = 0; c < 5; c++)
        grad_mlp_loss(NS, DD, HH, p + OX, g + OX, p + OT, g + OT, p + OW1, g + OW1, p + OB1, g + OB1,
                      p + OW2, g + OW2, p[OB2], &g[OB2], CF[c][0], CF[c][1], 1.0);
}
#define HARNESS_MAIN
#include "harness.h"
