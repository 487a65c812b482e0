import numpy as np


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mha_loss(X, Wq, Wk, Wv, Wo, n_heads=2):
    T, d = X.shape
    dh = d // n_heads
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    mask = np.tril(np.ones((T, T))) > 0
    heads = np.zeros((T, d))
    for h in range(n_heads):
        s, e = h * dh, (h + 1) * dh
        scores = Q[:, s:e] @ K[:, s:e].T / np.sqrt(dh)
        scores = np.where(mask, scores, -1e9)
        A = softmax(scores)
        heads[:, s:e] = A @ V[:, s:e]
    out = heads @ Wo + X
    return np.mean(out ** 2)


def probe_spec():
    rng = np.random.default_rng(63)
    X = rng.normal(size=(5, 4))
    Ws = [rng.normal(size=(4, 4)) * 0.4 for _ in range(4)]
    return dict(func="causal_mha_loss", wrt=["X", "Wq", "Wk", "Wv", "Wo"], args=[X] + Ws, kwargs={},
                idioms="multi-head causal attention, head loop with column slices, np.tril mask, "
                       "np.where(mask, scores, -1e9), slice-store heads[:, s:e], X.shape unpack, d // n_heads")
