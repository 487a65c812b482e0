import numpy as np


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_xent(X, W, b, Y):
    """Mean cross-entropy of a linear classifier; Y is one-hot (n, k)."""
    logits = X @ W + b
    probs = softmax(logits)
    return -np.mean(np.sum(Y * np.log(probs + 1e-12), axis=-1))


def probe_spec():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4, 5))
    W = rng.normal(size=(5, 3)) * 0.5
    b = np.zeros(3) + 0.1
    Y = np.eye(3)[[0, 2, 1, 2]]
    return dict(func="softmax_xent", wrt=["W", "b"], args=[X, W, b, Y], kwargs={},
                idioms="softmax helper axis=-1 keepdims, one-hot, np.mean of row sums")
