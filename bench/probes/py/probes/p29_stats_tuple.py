import numpy as np


def mean_std(x):
    m = np.mean(x)
    s = np.std(x)
    return m, s


def zscore_loss(x, w):
    m, s = mean_std(x)
    z = (x - m) / s
    return np.sum(w * z ** 3)


def probe_spec():
    rng = np.random.default_rng(17)
    x = rng.normal(size=9)
    w = rng.normal(size=9)
    return dict(func="zscore_loss", wrt=["x", "w"], args=[x, w], kwargs={},
                idioms="helper returning tuple (mean, std), tuple unpack")
