#include "harness.h"
#define L 3
#define C 3
#define B 4
void lstm_objective(int l, int c, int b, const double *main_params,
                    const double *extra_params, double *state,
                    const double *sequence, double *loss);
void grad_lstm_objective(int l, int c, int b, const double *main_params, double *d_main_params,
                         const double *extra_params, double *d_extra_params, double *state,
                         double *d_state, const double *sequence, double *d_sequence, double *loss,
                         double *d_loss);
#define OE (2 * L * 4 * B)
#define OS (OE + 3 * B)
#define OQ (OS + 2 * L * B)
static int np(void) { return OQ + C * B; }
static void init(double *p) { fill(p, np(), -1.0, 1.0); }
static double eval(const double *p)
{
    double st[2 * L * B], loss;
    memcpy(st, p + OS, sizeof st);
    lstm_objective(L, C, B, p, p + OE, st, p + OQ, &loss);
    return loss;
}
static void grad(const double *p, double *g)
{
    double st[2 * L * B], loss, d_loss = 1.0;
    memcpy(st, p + OS, sizeof st);
    grad_lstm_objective(L, C, B, p, g, p + OE, g + OE, st, g + OS, p + OQ, g + OQ, &loss, &d_loss);
}
#define SIDE_EFFECTS
static double side(const double *p)
{
    double st[2 * L * B], st2[2 * L * B], loss, loss2, d_loss = 1.0, g[OQ + C * B] = {0};
    memcpy(st, p + OS, sizeof st); memcpy(st2, st, sizeof st);
    lstm_objective(L, C, B, p, p + OE, st, p + OQ, &loss);
    grad_lstm_objective(L, C, B, p, g, p + OE, g + OE, st2, g + OS, p + OQ, g + OQ, &loss2, &d_loss);
    return fmax(maxdiff(st, st2, 2 * L * B), fabs(loss - loss2));
}
#define HARNESS_MAIN
#include "harness.h"
