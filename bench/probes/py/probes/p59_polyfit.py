import numpy as np


def poly_residual(coeffs, x, y):
    return np.sum((np.polyval(coeffs, x) - y) ** 2)


def probe_spec():
    x = np.linspace(0, 2, 9)
    y = np.exp(-x)
    return dict(func="poly_residual", wrt=["coeffs"], args=[np.array([0.1, -0.6, 1.0]), x, y],
                kwargs={}, idioms="np.polyval")
