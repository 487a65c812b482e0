import numpy as np
from scipy.special import gammaln


def poisson_loglik(beta, X, y):
    eta = X @ beta
    lam = np.exp(eta)
    return np.sum(y * np.log(lam) - lam - gammaln(y + 1))


def probe_spec():
    rng = np.random.default_rng(23)
    X = np.column_stack([np.ones(10), rng.normal(size=10)])
    y = rng.poisson(2.0, size=10).astype(float)
    beta = np.array([0.5, 0.2])
    return dict(func="poisson_loglik", wrt=["beta"], args=[beta, X, y], kwargs={},
                idioms="Poisson GLM, gammaln(y + 1)")
