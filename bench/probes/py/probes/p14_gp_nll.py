import numpy as np


def rbf_kernel(X1, X2, length_scale=1.0, sigma_f=1.0):
    sqdist = np.sum(X1 ** 2, 1).reshape(-1, 1) + np.sum(X2 ** 2, 1) - 2 * np.dot(X1, X2.T)
    return sigma_f ** 2 * np.exp(-0.5 / length_scale ** 2 * sqdist)


def gp_nll(log_ell, log_sf, log_sn, X, y):
    ell = np.exp(log_ell)
    sf = np.exp(log_sf)
    sn = np.exp(log_sn)
    n = len(y)
    K = rbf_kernel(X, X, length_scale=ell, sigma_f=sf) + sn ** 2 * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y.dot(alpha) + np.sum(np.log(np.diagonal(L))) + 0.5 * n * np.log(2 * np.pi)


def probe_spec():
    rng = np.random.default_rng(13)
    X = rng.uniform(-3, 3, size=(8, 1))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=8)
    return dict(func="gp_nll", wrt=["log_ell", "log_sf", "log_sn"],
                args=[0.1, -0.2, -1.5, X, y], kwargs={},
                idioms="cookbook rbf kernel (reshape(-1,1)), cholesky, solve, np.diagonal, keyword call")
