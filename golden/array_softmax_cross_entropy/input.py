import numpy as np


def softmax_xent(W: "f64[k, d]", X: "f64[m, d]", Y: "f64[m, k]"):
    # rows of X are examples, rows of Y one-hot labels; a stable log-softmax
    z = X @ W.T
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * logp) / X.shape[0]
