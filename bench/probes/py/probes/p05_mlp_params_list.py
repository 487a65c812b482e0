import numpy as np


def forward(params, X):
    h = X
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def mlp_params_loss(W1, b1, W2, b2, X, y):
    params = [(W1, b1), (W2, b2)]
    out = forward(params, X)
    return np.mean((out.ravel() - y) ** 2)


def probe_spec():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(8, 3))
    y = rng.normal(size=8)
    W1 = rng.normal(size=(3, 5)) * 0.5
    b1 = np.zeros(5)
    W2 = rng.normal(size=(5, 1)) * 0.5
    b2 = np.zeros(1)
    return dict(func="mlp_params_loss", wrt=["W1", "b1", "W2", "b2"], args=[W1, b1, W2, b2, X, y],
                kwargs={}, idioms="list of (W,b) tuples passed to helper, params[:-1], .ravel()")
