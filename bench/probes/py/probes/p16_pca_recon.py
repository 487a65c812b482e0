import numpy as np


def pca_reconstruction_error(X, W):
    Xc = X - X.mean(axis=0)
    Z = Xc @ W
    X_hat = Z @ W.T
    return np.mean(np.sum((Xc - X_hat) ** 2, axis=1))


def probe_spec():
    rng = np.random.default_rng(15)
    X = rng.normal(size=(10, 4))
    W = np.linalg.qr(rng.normal(size=(4, 2)))[0]
    return dict(func="pca_reconstruction_error", wrt=["X", "W"], args=[X, W], kwargs={},
                idioms="centering X.mean(axis=0), W.T projection")
