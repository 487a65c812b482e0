import numpy as np


def potential_triu(pos, masses):
    n = len(masses)
    i, j = np.triu_indices(n, k=1)
    diff = pos[i] - pos[j]
    r = np.linalg.norm(diff, axis=1)
    return -np.sum(masses[i] * masses[j] / r)


def probe_spec():
    rng = np.random.default_rng(21)
    pos = rng.normal(size=(5, 3))
    masses = rng.uniform(0.5, 2.0, size=5)
    return dict(func="potential_triu", wrt=["pos", "masses"], args=[pos, masses], kwargs={},
                idioms="np.triu_indices, fancy-index rows pos[i], norm axis=1")
