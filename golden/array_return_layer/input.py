import numpy as np


def layer(W: "f64[m, n]", x: "f64[n]", b: "f64[m]"):
    """A dense layer: its gradient takes d_return, the seed of the returned vector."""
    return np.tanh(W @ x + b) * 2.0
