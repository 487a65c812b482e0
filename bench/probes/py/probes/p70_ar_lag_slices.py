import numpy as np


def ar_gaussian_nll(phi, c, log_sigma, x):
    """Conditional Gaussian NLL of an AR(p) model, vectorised over time with lagged slices."""
    p = phi.shape[0]
    n = x.shape[0]
    pred = c * np.ones(n - p)
    for j in range(p):
        pred = pred + phi[j] * x[p - 1 - j:n - 1 - j]
    resid = x[p:] - pred
    sigma2 = np.exp(2.0 * log_sigma)
    return 0.5 * (n - p) * np.log(2.0 * np.pi * sigma2) + 0.5 * np.sum(resid ** 2) / sigma2


def probe_spec():
    rng = np.random.default_rng(70)
    x = np.cumsum(rng.normal(size=20)) * 0.2
    phi = np.array([0.6, -0.25, 0.1])
    return dict(func="ar_gaussian_nll", wrt=["phi", "c", "log_sigma"], args=[phi, 0.05, -0.3, x], kwargs={},
                idioms="AR(p) NLL vectorised over time: loop over lags accumulating phi[j] * x[p-1-j:n-1-j], "
                       "c * np.ones(n - p), x[p:] - pred, np.exp(2 log_sigma)")
