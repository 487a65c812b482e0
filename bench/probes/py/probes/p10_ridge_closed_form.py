import numpy as np


def ridge_val_error(alpha, X, y, Xval, yval):
    n_features = X.shape[1]
    A = X.T @ X + alpha * np.eye(n_features)
    w = np.linalg.solve(A, X.T @ y)
    resid = Xval @ w - yval
    return float(resid @ resid) / len(yval)


def probe_spec():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(12, 4))
    y = rng.normal(size=12)
    Xval = rng.normal(size=(6, 4))
    yval = rng.normal(size=6)
    return dict(func="ridge_val_error", wrt=["alpha", "X", "y"], args=[0.7, X, y, Xval, yval],
                kwargs={}, idioms="np.linalg.solve, np.eye, float(), resid @ resid")
