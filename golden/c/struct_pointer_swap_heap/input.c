#include <math.h>
#include <stdlib.h>

#define N 4

typedef struct {
    double u[N][N];
    double v[N][N];
} State;

static void advance(const State *s, State *o, double dt)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int e = (j + 1) % N, w = (j + N - 1) % N;
            o->u[i][j] = s->u[i][j] + dt * (s->v[i][e] - s->v[i][w]);
            o->v[i][j] = s->v[i][j] + dt * sin(s->u[i][e] - s->u[i][w]);
        }
}

/* Two states on the heap, swapped by pointer after each step (ping-pong); the struct's members
 * are 2-D arrays, reached through whichever pointer holds the state now. */
double evolve(const double *u0, double dt, int steps)
{
    State *cur = malloc(sizeof(State)), *nxt = malloc(sizeof *nxt);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            cur->u[i][j] = u0[i * N + j];
            cur->v[i][j] = 0.0;
        }
    for (int k = 0; k < steps; k++) {
        advance(cur, nxt, dt);
        nxt->v[0][0] *= 0.9;
        State *t = cur;
        cur = nxt;
        nxt = t;
    }
    double e = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            e += cur->u[i][j] * cur->u[i][j] + 0.5 * cur->v[i][j] * cur->v[i][j];
    free(cur);
    free(nxt);
    return e;
}
