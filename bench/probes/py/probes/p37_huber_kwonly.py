import numpy as np


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))


def robust_fit(w, X, y, *, delta=1.0, reduction="mean"):
    r = X @ w - y
    losses = huber(r, delta=delta)
    if reduction == "mean":
        return losses.mean()
    return losses.sum()


def probe_spec():
    rng = np.random.default_rng(19)
    X = rng.normal(size=(9, 2))
    y = rng.normal(size=9) * 2
    w = np.array([0.3, -0.4])
    return dict(func="robust_fit", wrt=["w", "delta"], args=[w, X, y], kwargs={"delta": 0.8},
                idioms="keyword-only args, string default, helper with keyword call, np.where")
