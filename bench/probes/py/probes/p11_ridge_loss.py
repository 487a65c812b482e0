import numpy as np


def ridge_loss(w, X, y, alpha=1.0):
    residual = y - X @ w
    return 0.5 * np.sum(residual ** 2) + 0.5 * alpha * np.linalg.norm(w) ** 2


def probe_spec():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(12, 4))
    y = rng.normal(size=12)
    w = rng.normal(size=4)
    return dict(func="ridge_loss", wrt=["w", "alpha"], args=[w, X, y], kwargs={"alpha": 0.3},
                idioms="np.linalg.norm(w)**2, default alpha passed as kwarg")
