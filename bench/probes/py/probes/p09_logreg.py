import numpy as np


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logistic_loss(w, b, X, y, lam=0.01):
    p = sigmoid(X.dot(w) + b)
    eps = 1e-12
    p = np.clip(p, eps, 1 - eps)
    nll = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    return nll + 0.5 * lam * np.dot(w, w)


def probe_spec():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(10, 3))
    y = (rng.random(10) > 0.5).astype(float)
    w = rng.normal(size=3)
    return dict(func="logistic_loss", wrt=["w", "b"], args=[w, 0.3, X, y], kwargs={"lam": 0.05},
                idioms="sigmoid helper, X.dot(w), np.clip, keyword arg lam")
