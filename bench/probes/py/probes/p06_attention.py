import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention_loss(X, Wq, Wk, Wv):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    A = softmax(scores)
    out = A @ V
    return np.sum(out ** 2) / X.shape[0]


def probe_spec():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(5, 4))
    Wq = rng.normal(size=(4, 3)) * 0.5
    Wk = rng.normal(size=(4, 3)) * 0.5
    Wv = rng.normal(size=(4, 3)) * 0.5
    return dict(func="attention_loss", wrt=["X", "Wq", "Wk", "Wv"], args=[X, Wq, Wk, Wv], kwargs={},
                idioms="scaled dot-product attention, Q.shape[-1], K.T")
