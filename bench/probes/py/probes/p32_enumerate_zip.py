import numpy as np


def weighted_poly_loss(coeffs, xs, ys, weights):
    total = 0.0
    for x, y, w in zip(xs, ys, weights):
        pred = 0.0
        for k, c in enumerate(coeffs):
            pred += c * x ** k
        total += w * (pred - y) ** 2
    return total


def probe_spec():
    coeffs = np.array([0.5, -1.0, 0.3])
    xs = np.linspace(-1, 1, 7)
    ys = np.cos(xs)
    weights = np.ones(7) / 7
    return dict(func="weighted_poly_loss", wrt=["coeffs"], args=[coeffs, xs, ys, weights], kwargs={},
                idioms="zip of three arrays, enumerate(coeffs), x ** k int power")
