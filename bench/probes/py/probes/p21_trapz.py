import numpy as np


def gaussian_integral(mu, sigma, a=-3.0, b=3.0, n=201):
    x = np.linspace(a, b, n)
    f = np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * np.sqrt(2 * np.pi))
    return np.trapezoid(f, x)


def probe_spec():
    return dict(func="gaussian_integral", wrt=["mu", "sigma", "b"], args=[0.3, 0.8], kwargs={"b": 2.5},
                idioms="np.linspace, np.trapezoid(f, x), defaults, kwarg b")
