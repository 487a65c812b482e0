import numpy as np


def chi2_line_fit(a, b, x, y, sigma, prior_width=10.0):
    """Weighted least squares of a straight line, written with sum() over generators."""
    chi2 = sum(((yi - (a * xi + b)) / si) ** 2 for xi, yi, si in zip(x, y, sigma))
    prior = sum(p ** 2 for p in (a, b)) / prior_width ** 2
    outliers = sum(abs(yi - a * xi - b) for xi, yi in zip(x, y) if yi > 1.5)
    return 0.5 * chi2 + 0.5 * prior + 0.01 * outliers


def probe_spec():
    x = np.linspace(0.0, 2.0, 8)
    y = np.array([0.3, 0.8, 1.1, 1.7, 1.9, 2.6, 2.9, 3.4])
    sigma = np.array([0.2, 0.25, 0.2, 0.3, 0.2, 0.25, 0.3, 0.2])
    return dict(func="chi2_line_fit", wrt=["a", "b"], args=[1.4, 0.2, x, y, sigma], kwargs={},
                idioms="Python sum() over generator expressions with zip of three arrays, a tuple literal of "
                       "parameters, and a filtered generator (if yi > 1.5) with builtin abs")
