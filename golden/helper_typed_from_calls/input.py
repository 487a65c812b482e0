import numpy as np


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logistic_with_prior(w: "f64[n]", X: "f64[m, n]", y: "f64[m]", t: float):
    p = sigmoid(X @ w)
    loss = -np.sum(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))
    return loss + sigmoid(t) * np.sum(w * w)
