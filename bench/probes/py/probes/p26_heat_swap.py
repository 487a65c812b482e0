import numpy as np


def heat_equation(u0, alpha, dx=0.1, dt=0.001, nt=50):
    u = u0.copy()
    un = np.empty_like(u)
    r = alpha * dt / dx ** 2
    for n in range(nt):
        un[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
        un[0] = 0.0
        un[-1] = 0.0
        u, un = un, u
    return np.sum(u ** 2) * dx


def probe_spec():
    u0 = np.sin(np.pi * np.linspace(0, 1, 11)) + 0.2 * np.sin(3 * np.pi * np.linspace(0, 1, 11))
    return dict(func="heat_equation", wrt=["u0", "alpha"], args=[u0, 1.0], kwargs={},
                idioms="time stepping with u, un = un, u swap, u0.copy(), np.empty_like")
