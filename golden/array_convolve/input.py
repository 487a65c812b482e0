import numpy as np


def smoothed(x: "f64[n]", k: "f64[m]", window: int):
    full = np.convolve(x, k)
    valid = np.convolve(x, k, mode="valid")
    same = np.convolve(k, x, "same")
    average = np.convolve(x, np.ones(window) / window, mode="valid")
    return np.sum(full**2) + np.sum(np.tanh(valid)) + np.sum(same * same) + np.sum(average**2)
