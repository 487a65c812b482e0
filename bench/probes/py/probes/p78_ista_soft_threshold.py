import numpy as np


def soft_threshold(v, t):
    return np.sign(v) * np.maximum(np.abs(v) - t, 0.0)


def ista_unrolled_loss(y, lam, X, w_true, n_iter=20):
    """Unrolled ISTA for the lasso (as in learned-ISTA): loss of the final iterate vs a reference."""
    n, d = X.shape
    L = np.sum(X ** 2)
    step = 1.0 / L
    w = np.zeros(d)
    for it in range(n_iter):
        grad = X.T @ (X @ w - y)
        w = soft_threshold(w - step * grad, step * lam)
    r = np.clip(w - w_true, -0.5, 0.5)
    return np.sum(r ** 2) + 0.1 * np.sum(np.abs(w))


def probe_spec():
    rng = np.random.default_rng(78)
    X = rng.normal(size=(8, 5))
    w_true = np.array([1.2, 0.0, -0.8, 0.0, 0.4])
    y = X @ w_true + 0.05 * rng.normal(size=8)
    return dict(func="ista_unrolled_loss", wrt=["y", "lam"], args=[y, 0.9, X, w_true], kwargs={},
                idioms="unrolled ISTA: soft-threshold helper np.sign(v) * np.maximum(np.abs(v) - t, 0.0), "
                       "n, d = X.shape, w rebound in loop, np.clip(r, -0.5, 0.5), L1 via np.abs")
