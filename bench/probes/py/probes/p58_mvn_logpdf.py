import numpy as np


def mvn_loglik(X, mu, L_flat):
    d = len(mu)
    L = np.zeros((d, d))
    L[np.tril_indices(d)] = L_flat
    cov = L @ L.T + 1e-6 * np.eye(d)
    diff = X - mu
    prec = np.linalg.inv(cov)
    maha = np.einsum("ij,jk,ik->i", diff, prec, diff)
    sign, logdet = np.linalg.slogdet(cov)
    return -0.5 * np.sum(maha + logdet + d * np.log(2 * np.pi))


def probe_spec():
    rng = np.random.default_rng(36)
    X = rng.normal(size=(7, 3))
    mu = np.array([0.1, -0.2, 0.3])
    L_flat = np.array([1.0, 0.2, 0.9, -0.1, 0.3, 1.1])
    return dict(func="mvn_loglik", wrt=["mu", "L_flat"], args=[X, mu, L_flat], kwargs={},
                idioms="Cholesky factor from np.tril_indices, inv, einsum 3 operands, slogdet")
