import numpy as np


def wave_energy(u0, c, nt=30, dx=0.1, dt=0.05):
    u_prev = u0.copy()
    u = u0.copy()
    C2 = (c * dt / dx) ** 2
    for _ in range(nt):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + C2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return np.sum(u ** 2)


def probe_spec():
    u0 = np.exp(-((np.linspace(0, 1, 12) - 0.5) ** 2) / 0.01)
    return dict(func="wave_energy", wrt=["u0", "c"], args=[u0, 1.0], kwargs={},
                idioms="leapfrog u_prev, u = u, u_next with u_next allocated in loop")
