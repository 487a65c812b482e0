import numpy as np


def cumulative(h: "f64[n]", widths: "f64[n]", a: float):
    # lists of numbers beside arrays: NumPy takes each for the array of its items
    cum = np.concatenate(([0.0], np.cumsum(h * widths)))
    framed = np.hstack([[a], h, [1.0, 2.0 * a]])
    return np.sum(cum * cum) + np.sum(np.tanh(framed))
