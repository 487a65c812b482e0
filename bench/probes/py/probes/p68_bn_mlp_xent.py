import numpy as np


def batch_norm(h, gamma, beta, eps=1e-5):
    mu = h.mean(axis=0, keepdims=True)
    var = h.var(axis=0, keepdims=True)
    return gamma * (h - mu) / np.sqrt(var + eps) + beta


def mlp_bn_xent(W1, b1, gamma, beta, W2, b2, X, labels):
    h = X @ W1 + b1
    h = batch_norm(h, gamma, beta)
    h = np.tanh(h)
    logits = h @ W2 + b2
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    n = X.shape[0]
    return -logp[np.arange(n), labels].mean()


def probe_spec():
    rng = np.random.default_rng(68)
    X = rng.normal(size=(8, 3))
    labels = rng.integers(0, 3, size=8)
    W1 = rng.normal(size=(3, 5)) * 0.5
    b1 = rng.normal(size=5) * 0.1
    gamma = 1.0 + 0.1 * rng.normal(size=5)
    beta = 0.1 * rng.normal(size=5)
    W2 = rng.normal(size=(5, 3)) * 0.5
    b2 = np.zeros(3)
    return dict(func="mlp_bn_xent", wrt=["W1", "b1", "gamma", "beta", "W2", "b2"],
                args=[W1, b1, gamma, beta, W2, b2, X, labels], kwargs={},
                idioms="batch norm helper with mean/var(axis=0, keepdims=True), h rebound through helpers, "
                       "log-softmax with keepdims max shift, logp[np.arange(n), labels].mean()")
