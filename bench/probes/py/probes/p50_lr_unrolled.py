import numpy as np


def train_and_eval(lr, w0, X, y, Xv, yv, n_iters=20):
    w = w0.copy()
    n = len(y)
    for it in range(n_iters):
        grad = 2.0 / n * X.T @ (X @ w - y)
        w -= lr * grad
    return np.mean((Xv @ w - yv) ** 2)


def probe_spec():
    rng = np.random.default_rng(28)
    X = rng.normal(size=(10, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=10)
    Xv = rng.normal(size=(5, 3))
    yv = Xv @ np.array([1.0, -2.0, 0.5])
    w0 = np.zeros(3)
    return dict(func="train_and_eval", wrt=["lr", "w0"], args=[0.05, w0, X, y, Xv, yv], kwargs={},
                idioms="unrolled gradient descent, w -= lr * grad in place, hypergradient")
