import numpy as np

G = 1.0


def gravitational_potential(pos, masses, softening=0.01):
    n = pos.shape[0]
    U = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[j] - pos[i]
            r = np.sqrt(np.dot(dx, dx) + softening ** 2)
            U -= G * masses[i] * masses[j] / r
    return U


def probe_spec():
    rng = np.random.default_rng(20)
    pos = rng.normal(size=(5, 3))
    masses = rng.uniform(0.5, 2.0, size=5)
    return dict(func="gravitational_potential", wrt=["pos", "masses"], args=[pos, masses], kwargs={},
                idioms="pairwise double loop j in range(i+1,n), row difference, module constant G")
