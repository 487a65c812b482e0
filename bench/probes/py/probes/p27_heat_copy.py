import numpy as np


def heat_explicit(u0, kappa, nt=40):
    nx = len(u0)
    dx = 1.0 / (nx - 1)
    dt = 0.4 * dx ** 2
    u = u0.copy()
    for n in range(nt):
        un = u.copy()
        u[1:-1] = un[1:-1] + kappa * dt / dx ** 2 * (un[2:] - 2 * un[1:-1] + un[:-2])
    return u[nx // 2]


def probe_spec():
    u0 = np.exp(-((np.linspace(0, 1, 15) - 0.4) ** 2) / 0.02)
    return dict(func="heat_explicit", wrt=["u0", "kappa"], args=[u0, 0.8], kwargs={},
                idioms="CFD-python 12 steps style un = u.copy() in loop, u[nx // 2]")
