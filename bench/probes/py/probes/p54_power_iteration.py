import numpy as np


def top_eigenvalue(A, n_iter=50):
    S = A @ A.T
    v = np.ones(S.shape[0]) / np.sqrt(S.shape[0])
    for _ in range(n_iter):
        v = S @ v
        v /= np.linalg.norm(v)
    return v @ S @ v


def probe_spec():
    rng = np.random.default_rng(32)
    A = rng.normal(size=(4, 3))
    return dict(func="top_eigenvalue", wrt=["A"], args=[A], kwargs={},
                idioms="power iteration, v rebound then v /= norm in loop, bilinear form v @ S @ v")
