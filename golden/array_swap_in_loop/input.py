import numpy as np


def reaction_diffusion(u0, n, steps, dt):
    u = np.zeros(n)
    un = np.zeros(n)
    for i in range(n):
        u[i] = u0[i]
    for t in range(steps):
        for i in range(1, n - 1):
            lap = u[i - 1] - 2.0 * u[i] + u[i + 1]
            un[i] = u[i] + dt * (lap - u[i] ** 3)
        un[0] = u[0]
        un[n - 1] = u[n - 1]
        u, un = un, u
    return np.sum(u * u)
