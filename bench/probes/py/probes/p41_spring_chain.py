import numpy as np


def spring_energy(x, k, rest_length):
    """Chain of springs in 2-D, x is (n, 2); first node pinned to origin."""
    E = 0.0
    for i in range(len(x) - 1):
        d = np.linalg.norm(x[i + 1] - x[i])
        E += 0.5 * k * (d - rest_length) ** 2
    E += 0.5 * k * np.sum(x[0] ** 2)
    gravity = 9.81 * np.sum(x[:, 1])
    return E + gravity


def probe_spec():
    rng = np.random.default_rng(22)
    x = np.cumsum(rng.normal(size=(6, 2)) * 0.3 + np.array([1.0, 0.0]), axis=0)
    return dict(func="spring_energy", wrt=["x", "k", "rest_length"], args=[x, 50.0, 1.0], kwargs={},
                idioms="loop over rows with np.linalg.norm of row difference, x[:, 1] column")
