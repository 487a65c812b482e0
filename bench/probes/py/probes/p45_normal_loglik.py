import numpy as np


def normal_loglik(mu, sigma, data):
    n = len(data)
    return -n / 2 * np.log(2 * np.pi) - n * np.log(sigma) - np.sum((data - mu) ** 2) / (2 * sigma ** 2)


def probe_spec():
    data = np.array([1.1, 2.3, 0.7, 1.9, 1.4, 2.8])
    return dict(func="normal_loglik", wrt=["mu", "sigma"], args=[1.5, 0.9, data], kwargs={},
                idioms="textbook Gaussian log-likelihood, len(data)")
