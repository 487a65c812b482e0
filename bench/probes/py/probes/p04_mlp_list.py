import numpy as np


def relu(x):
    return np.maximum(0, x)


def mlp_loss(X, y, W1, b1, W2, b2, W3, b3):
    weights = [W1, W2, W3]
    biases = [b1, b2, b3]
    h = X
    for i, (W, b) in enumerate(zip(weights, biases)):
        h = h @ W + b
        if i < len(weights) - 1:
            h = relu(h)
    pred = h[:, 0]
    return np.mean((pred - y) ** 2)


def probe_spec():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(8, 4))
    y = rng.normal(size=8)
    W1 = rng.normal(size=(4, 6)) * 0.5
    b1 = rng.normal(size=6) * 0.1 + 0.05
    W2 = rng.normal(size=(6, 5)) * 0.5
    b2 = rng.normal(size=5) * 0.1 + 0.05
    W3 = rng.normal(size=(5, 1)) * 0.5
    b3 = np.array([0.1])
    return dict(func="mlp_loss", wrt=["W1", "b1", "W2", "b2", "W3", "b3"],
                args=[X, y, W1, b1, W2, b2, W3, b3], kwargs={},
                idioms="list of weight matrices, enumerate(zip()), relu np.maximum(0,x), h rebound")
