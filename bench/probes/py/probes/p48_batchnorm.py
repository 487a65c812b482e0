import numpy as np


def batchnorm_mlp(X, W, gamma, beta, y, eps=1e-5):
    h = X @ W
    mu = h.mean(axis=0)
    var = ((h - mu) ** 2).mean(axis=0)
    h_norm = (h - mu) / np.sqrt(var + eps)
    out = gamma * h_norm + beta
    scores = out.sum(axis=1)
    return np.mean((scores - y) ** 2)


def probe_spec():
    rng = np.random.default_rng(26)
    X = rng.normal(size=(6, 3))
    W = rng.normal(size=(3, 4))
    gamma = np.ones(4) + 0.1
    beta = np.zeros(4) + 0.05
    y = rng.normal(size=6)
    return dict(func="batchnorm_mlp", wrt=["W", "gamma", "beta"], args=[X, W, gamma, beta, y], kwargs={},
                idioms="batch norm over axis=0, broadcasting rows")
