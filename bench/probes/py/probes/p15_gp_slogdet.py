import numpy as np


def gp_nll_slogdet(theta, X, y):
    amp, ell, noise = np.exp(theta)
    d = X[:, None, :] - X[None, :, :]
    r2 = np.sum(d ** 2, axis=-1)
    K = amp * np.exp(-0.5 * r2 / ell ** 2) + noise * np.eye(len(X))
    sign, logdet = np.linalg.slogdet(K)
    Kinv_y = np.linalg.solve(K, y)
    return 0.5 * (y @ Kinv_y + logdet + len(y) * np.log(2 * np.pi))


def probe_spec():
    rng = np.random.default_rng(14)
    X = rng.normal(size=(6, 2))
    y = rng.normal(size=6)
    theta = np.array([0.2, 0.1, -2.0])
    return dict(func="gp_nll_slogdet", wrt=["theta"], args=[theta, X, y], kwargs={},
                idioms="unpack np.exp(theta) into 3 names, 3-D broadcast X[:,None,:]-X[None,:,:], slogdet")
