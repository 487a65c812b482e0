import numpy as np


def clipped(x: "f64[n]", lo: "f64[n]", a: float):
    """np.clip with number and array bounds, .clip(), np.sign; and on numbers."""
    y = np.clip(x, -0.5, 0.5) ** 2 + x.clip(lo, 0.75) * np.sign(x)
    return np.sum(y) + np.clip(a, -1.0, 1.0) * np.sign(a) + np.sum(np.clip(x, lo, a))
