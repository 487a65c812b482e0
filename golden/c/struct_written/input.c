/* Struct members written in place: an explicit Euler step of particles, then their energy. */
struct State {
    double x;
    double v;
};

double step_energy(struct State *s, int n, double dt, double k)
{
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        s[i].v -= dt * k * s[i].x;
        s[i].x += dt * s[i].v;
        e += 0.5 * s[i].v * s[i].v + 0.5 * k * s[i].x * s[i].x;
    }
    return e;
}
