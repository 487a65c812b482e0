/* Benchmarks-game n-body: leapfrog steps, then the total energy. */
#include <math.h>

struct planet {
    double x, y, z;
    double vx, vy, vz;
    double mass;
};

static void advance(int nbodies, struct planet *bodies, double dt)
{
    int i, j;
    for (i = 0; i < nbodies; i++) {
        struct planet *b = &(bodies[i]);
        for (j = i + 1; j < nbodies; j++) {
            struct planet *b2 = &(bodies[j]);
            double dx = b->x - b2->x;
            double dy = b->y - b2->y;
            double dz = b->z - b2->z;
            double distance = sqrt(dx * dx + dy * dy + dz * dz);
            double mag = dt / (distance * distance * distance);
            b->vx -= dx * b2->mass * mag;
            b->vy -= dy * b2->mass * mag;
            b->vz -= dz * b2->mass * mag;
            b2->vx += dx * b->mass * mag;
            b2->vy += dy * b->mass * mag;
            b2->vz += dz * b->mass * mag;
        }
    }
    for (i = 0; i < nbodies; i++) {
        struct planet *b = &(bodies[i]);
        b->x += dt * b->vx;
        b->y += dt * b->vy;
        b->z += dt * b->vz;
    }
}

static double energy(int nbodies, struct planet *bodies)
{
    double e;
    int i, j;

    e = 0.0;
    for (i = 0; i < nbodies; i++) {
        struct planet *b = &(bodies[i]);
        e += 0.5 * b->mass * (b->vx * b->vx + b->vy * b->vy + b->vz * b->vz);
        for (j = i + 1; j < nbodies; j++) {
            struct planet *b2 = &(bodies[j]);
            double dx = b->x - b2->x;
            double dy = b->y - b2->y;
            double dz = b->z - b2->z;
            double distance = sqrt(dx * dx + dy * dy + dz * dz);
            e -= (b->mass * b2->mass) / distance;
        }
    }
    return e;
}

double nbody_run(int nbodies, struct planet *bodies, int nsteps, double dt)
{
    for (int k = 1; k <= nsteps; k++)
        advance(nbodies, bodies, dt);
    return energy(nbodies, bodies);
}
