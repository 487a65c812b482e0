import numpy as np


def activate(z, kind, alpha):
    if kind == "softplus":
        return np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0.0)
    elif kind == "elu":
        return np.where(z > 0, z, alpha * (np.exp(z) - 1.0))
    elif kind == "gelu":
        return 0.5 * z * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (z + 0.044715 * z ** 3)))
    else:
        return np.tanh(z)


def mlp_mse(W1, b1, W2, b2, X, y, act="elu", alpha=1.0):
    h = activate(X @ W1 + b1, act, alpha)
    h2 = activate(h @ W2 + b2, "gelu", alpha)
    out = np.sum(h2, axis=1)
    return np.mean((out - y) ** 2)


def probe_spec():
    rng = np.random.default_rng(71)
    X = rng.normal(size=(7, 3))
    y = rng.normal(size=7)
    W1 = rng.normal(size=(3, 5)) * 0.6
    b1 = np.array([0.11, -0.07, 0.05, 0.2, -0.13])
    W2 = rng.normal(size=(5, 2)) * 0.5
    b2 = np.array([0.03, -0.04])
    return dict(func="mlp_mse", wrt=["W1", "b1", "W2", "b2", "alpha"], args=[W1, b1, W2, b2, X, y],
                kwargs={"act": "elu", "alpha": 0.7},
                idioms="activation helper chosen by string with if/elif/else returning arrays (softplus, ELU via "
                       "np.where, tanh-GELU), string literal passed at one call and parameter at another, "
                       "defaulted alpha in --wrt, row-batch X @ W1 + b1")
