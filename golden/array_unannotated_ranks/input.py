import numpy as np


def f(W, b, x):
    # Nothing here says what W, b and x are: the gradient checks the ranks it assumes.
    return np.sum(np.tanh(W @ x + b))
