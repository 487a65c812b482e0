/* 2-D nonlinear shallow-water equations, Lax-Friedrichs scheme on a doubly
 * periodic grid (neighbours by modulo), the state (h, hu, hv) kept in a struct
 * of 2-D arrays; two states on the heap swapped by pointer each step.
 * Objective: misfit of the final height to an observed field plus the mean
 * kinetic energy. */
#include <stdlib.h>
#include <math.h>

#define NX 8
#define NY 8

typedef struct {
    double h[NY][NX];
    double hu[NY][NX];
    double hv[NY][NX];
} State;

static void lf_step(const State *s, State *o, double g, double dt, double dx, double dy)
{
    const double cx = 0.5 * dt / dx, cy = 0.5 * dt / dy;
    for (int j = 0; j < NY; j++) {
        int jn = (j + 1) % NY, js = (j - 1 + NY) % NY;
        for (int i = 0; i < NX; i++) {
            int ie = (i + 1) % NX, iw = (i - 1 + NX) % NX;
            double hE = s->h[j][ie], hW = s->h[j][iw], hN = s->h[jn][i], hS = s->h[js][i];
            double uE = s->hu[j][ie] / hE, uW = s->hu[j][iw] / hW;
            double vN = s->hv[jn][i] / hN, vS = s->hv[js][i] / hS;
            double FE = s->hu[j][ie] * uE + 0.5 * g * hE * hE;
            double FW = s->hu[j][iw] * uW + 0.5 * g * hW * hW;
            double GN = s->hv[jn][i] * vN + 0.5 * g * hN * hN;
            double GS = s->hv[js][i] * vS + 0.5 * g * hS * hS;
            o->h[j][i] = 0.25 * (hE + hW + hN + hS)
                - cx * (s->hu[j][ie] - s->hu[j][iw]) - cy * (s->hv[jn][i] - s->hv[js][i]);
            o->hu[j][i] = 0.25 * (s->hu[j][ie] + s->hu[j][iw] + s->hu[jn][i] + s->hu[js][i])
                - cx * (FE - FW)
                - cy * (s->hv[jn][i] * s->hu[jn][i] / hN - s->hv[js][i] * s->hu[js][i] / hS);
            o->hv[j][i] = 0.25 * (s->hv[j][ie] + s->hv[j][iw] + s->hv[jn][i] + s->hv[js][i])
                - cx * (s->hu[j][ie] * s->hv[j][ie] / hE - s->hu[j][iw] * s->hv[j][iw] / hW)
                - cy * (GN - GS);
        }
    }
}

double swe_misfit(const double h0[NY][NX], double g, double dt, int nsteps,
                  const double hobs[NY][NX])
{
    const double dx = 1.0 / NX, dy = 1.0 / NY;
    State *cur = malloc(sizeof(State));
    State *nxt = malloc(sizeof(State));
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            cur->h[j][i] = h0[j][i];
            cur->hu[j][i] = 0.0;
            cur->hv[j][i] = 0.0;
        }
    for (int n = 0; n < nsteps; n++) {
        lf_step(cur, nxt, g, dt, dx, dy);
        State *tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    double mis = 0.0, ke = 0.0;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double e = cur->h[j][i] - hobs[j][i];
            mis += e * e;
            ke += 0.5 * (cur->hu[j][i] * cur->hu[j][i] + cur->hv[j][i] * cur->hv[j][i])
                / cur->h[j][i];
        }
    free(cur);
    free(nxt);
    return mis * dx * dy + 0.1 * ke / (NX * NY);
}
