import numpy as np


def gmm_nll_diag(X, pis, mus, sigmas):
    """Diagonal-covariance GMM in d dims, mixture loop over components."""
    n, d = X.shape
    K = len(pis)
    lik = np.zeros(n)
    for k in range(K):
        diff = X - mus[k]
        quad = np.sum(diff ** 2 / sigmas[k] ** 2, axis=1)
        norm = (2 * np.pi) ** (d / 2) * np.prod(sigmas[k])
        lik += pis[k] * np.exp(-0.5 * quad) / norm
    return -np.sum(np.log(lik))


def probe_spec():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(8, 2))
    pis = np.array([0.3, 0.7])
    mus = rng.normal(size=(2, 2))
    sigmas = np.array([[1.0, 0.8], [1.2, 0.9]])
    return dict(func="gmm_nll_diag", wrt=["pis", "mus", "sigmas"], args=[X, pis, mus, sigmas],
                kwargs={}, idioms="loop over components, np.prod, n, d = X.shape, lik += ...")
