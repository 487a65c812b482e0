import numpy as np


def lj_energy(positions, epsilon=1.0, sigma=1.0):
    n = len(positions)
    diff = positions[:, np.newaxis, :] - positions[np.newaxis, :, :]
    r2 = np.sum(diff ** 2, axis=-1)
    mask = ~np.eye(n, dtype=bool)
    inv6 = (sigma ** 2 / r2[mask]) ** 3
    return 0.5 * np.sum(4 * epsilon * (inv6 ** 2 - inv6))


def probe_spec():
    pos = np.array([[0.0, 0.0, 0.0], [1.1, 0.0, 0.0], [0.0, 1.2, 0.1], [1.0, 1.1, 0.9]])
    return dict(func="lj_energy", wrt=["positions", "epsilon", "sigma"], args=[pos], kwargs={"sigma": 0.95},
                idioms="3-D broadcast with np.newaxis, boolean mask from ~np.eye(dtype=bool)")
