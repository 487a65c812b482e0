import numpy as np


def ar_nll(phi, sigma, y):
    p = len(phi)
    resid = []
    for t in range(p, len(y)):
        pred = np.dot(phi, y[t - p:t][::-1])
        resid.append(y[t] - pred)
    resid = np.array(resid)
    n = len(resid)
    return 0.5 * n * np.log(2 * np.pi * sigma ** 2) + np.sum(resid ** 2) / (2 * sigma ** 2)


def probe_spec():
    rng = np.random.default_rng(33)
    y = np.cumsum(rng.normal(size=15)) * 0.3
    phi = np.array([0.5, -0.2])
    return dict(func="ar_nll", wrt=["phi", "sigma"], args=[phi, 0.7, y], kwargs={},
                idioms="AR(p): lagged window y[t-p:t][::-1], resid list rebound to np.array")
