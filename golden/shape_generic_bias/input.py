import numpy as np


def layer_loss(W: "f64[m, n]", x: "f64[n]", b, y):
    # b and y may be numbers or vectors (or (m, 1)-shaped, ...): they only meet arrays in
    # broadcasting arithmetic, so the gradient serves every shape that broadcasts there.
    z = np.tanh(W @ x + b)
    return np.sum((z - y) ** 2)
