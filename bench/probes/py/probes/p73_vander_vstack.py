import numpy as np


def poly_features_ridge(w, x, y, degree=3, lam=0.1):
    """Polynomial regression with the design matrix built as np.vstack of a list comprehension."""
    Phi = np.vstack([x ** k for k in range(degree + 1)]).T
    pred = Phi @ w
    return np.mean((pred - y) ** 2) + lam * np.sum(w[1:] ** 2)


def probe_spec():
    x = np.linspace(-1.0, 1.0, 9)
    y = np.sin(2.0 * x) + 0.1 * x
    w = np.array([0.1, 1.5, -0.2, -0.9])
    return dict(func="poly_features_ridge", wrt=["w", "lam"], args=[w, x, y], kwargs={},
                idioms="design matrix np.vstack([x ** k for k in range(degree + 1)]).T, w[1:] penalty, "
                       "defaulted int degree and float lam (lam in --wrt)")
