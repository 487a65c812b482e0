import numpy as np


def heat2d_misfit(u0, kappa, target, dt=0.1, n_steps=4):
    """Explicit 2-D heat equation with insulated (edge-padded) boundaries; misfit to a target field."""
    u = u0.copy()
    for step in range(n_steps):
        up = np.pad(u, 1, mode="edge")
        lap = up[:-2, 1:-1] + up[2:, 1:-1] + up[1:-1, :-2] + up[1:-1, 2:] - 4.0 * u
        u = u + dt * kappa * lap
    return 0.5 * np.sum((u - target) ** 2)


def probe_spec():
    rng = np.random.default_rng(77)
    u0 = rng.normal(size=(5, 6))
    target = rng.normal(size=(5, 6)) * 0.3
    return dict(func="heat2d_misfit", wrt=["u0", "kappa"], args=[u0, 0.8, target], kwargs={},
                idioms="2-D heat equation: np.pad(u, 1, mode='edge') then shifted interior slices of the "
                       "padded array, u rebound in a time loop")
