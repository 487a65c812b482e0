import numpy as np


def conv1d(x, w, bias=0.0):
    n = len(x)
    k = len(w)
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        acc = bias
        for j in range(k):
            acc += x[i + j] * w[j]
        out[i] = acc
    return out


def conv1d_loss(x, w, bias, target):
    y = conv1d(x, w, bias)
    y = np.tanh(y)
    return np.mean((y - target) ** 2)


def probe_spec():
    rng = np.random.default_rng(6)
    x = rng.normal(size=12)
    w = rng.normal(size=3) * 0.5
    target = rng.normal(size=10) * 0.5
    return dict(func="conv1d_loss", wrt=["x", "w", "bias"], args=[x, w, 0.2, target], kwargs={},
                idioms="conv via nested loops, helper returns filled local, scalar bias")
