import numpy as np


def laplacian_energy(u, dx=0.1):
    lap = np.zeros_like(u)
    lap[1:-1] = (u[2:] - 2 * u[1:-1] + u[:-2]) / dx ** 2
    return 0.5 * np.sum(lap ** 2) * dx


def probe_spec():
    u = np.sin(np.linspace(0, np.pi, 12)) + 0.1 * np.linspace(0, 1, 12) ** 2
    return dict(func="laplacian_energy", wrt=["u"], args=[u], kwargs={},
                idioms="finite-difference Laplacian via slices, zeros_like, slice assignment")
