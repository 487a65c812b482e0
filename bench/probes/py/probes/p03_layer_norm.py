import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + eps)
    return gamma * xhat + beta


def layer_norm_loss(x, gamma, beta, target):
    out = layer_norm(x, gamma, beta)
    return 0.5 * np.sum((out - target) ** 2)


def probe_spec():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4, 6))
    gamma = 1.0 + 0.1 * rng.normal(size=6)
    beta = 0.1 * rng.normal(size=6)
    target = rng.normal(size=(4, 6))
    return dict(func="layer_norm_loss", wrt=["x", "gamma", "beta"], args=[x, gamma, beta, target],
                kwargs={}, idioms="helper returning array, var keepdims, default eps")
