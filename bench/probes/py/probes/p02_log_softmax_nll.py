import numpy as np


def log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def nll_loss(logits, labels):
    n = logits.shape[0]
    logp = log_softmax(logits)
    return -logp[np.arange(n), labels].mean()


def probe_spec():
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(4, 3))
    labels = np.array([0, 2, 1, 1])
    return dict(func="nll_loss", wrt=["logits"], args=[logits, labels], kwargs={},
                idioms="method reductions, keepdims, fancy index logp[arange(n), labels]")
