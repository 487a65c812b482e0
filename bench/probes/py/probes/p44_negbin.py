import numpy as np
import scipy.special as sp


def negbin_nll(params, X, y):
    beta = params[:-1]
    log_alpha = params[-1]
    alpha = np.exp(log_alpha)
    mu = np.exp(X @ beta)
    r = 1.0 / alpha
    ll = (sp.gammaln(y + r) - sp.gammaln(r) - sp.gammaln(y + 1)
          + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))
    return -ll.sum()


def probe_spec():
    rng = np.random.default_rng(24)
    X = np.column_stack([np.ones(10), rng.normal(size=10)])
    y = rng.poisson(3.0, size=10).astype(float)
    params = np.array([0.8, 0.3, -0.5])
    return dict(func="negbin_nll", wrt=["params"], args=[params, X, y], kwargs={},
                idioms="statsmodels-style packed params[:-1]/params[-1], scipy.special as sp")
