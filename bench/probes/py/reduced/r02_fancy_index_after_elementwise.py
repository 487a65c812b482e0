import numpy as np


def f(logits, labels):
    n = logits.shape[0]
    logp = logits - 1.0
    return -logp[np.arange(n), labels].mean()
