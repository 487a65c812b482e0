import numpy as np


def reductions(A: "f64[m, n]", v: "f64[n]"):
    rows = np.sum(A, axis=1)
    cols = np.mean(A, axis=0)
    peak = np.max(A, axis=1)
    low = np.min(A, axis=0)
    centered = A - np.mean(A, axis=1, keepdims=True)
    total = np.sum(rows * rows) + np.sum(cols * v) + np.sum(peak) - np.sum(low * low)
    return total + np.sum(centered * centered) + np.mean(v) * np.max(v) - np.min(A)
