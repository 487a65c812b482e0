"""The loop programs of bench/loops.py, written as plain loops, the way Numba users write them.

s2sad reads this file as a user's module; the benchmark compiles the same functions with
``numba.njit`` for the primal. Arrays are parameters (the state arrays ``u``, ``h``, ``c`` are
updated in place, as such code does); the loss is the return value.
"""

import math

import numpy as np


def mag(x, n: int):
    s = 0.0
    for i in range(n):
        s += x[i] * x[i]
    return math.sqrt(s)


def norm(out, in_, n: int):
    """examples/norm.py: a vector divided by its magnitude (O(n^2) as written)."""
    for i in range(n):
        out[i] = in_[i] / mag(in_, n)


def heat(u, r: float, steps: int):
    """An explicit 1-D heat stepper (fixed ends), then the squared norm of the final state."""
    n = u.shape[0]
    v = np.empty(n)
    for _ in range(steps):
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            v[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(n):
            u[i] = v[i]
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s


def lstm(W, b, x, h, c, steps: int, hidden: int):
    """One LSTM cell run over a sequence (W: 4H x 2H, input then state), the sum of squares of
    its states as the loss."""
    z = np.empty(4 * hidden)
    loss = 0.0
    for t in range(steps):
        for j in range(4 * hidden):
            acc = b[j]
            for k in range(hidden):
                acc += W[j, k] * x[t, k] + W[j, hidden + k] * h[k]
            z[j] = acc
        for k in range(hidden):
            ig = 1.0 / (1.0 + math.exp(-z[k]))
            fg = 1.0 / (1.0 + math.exp(-z[hidden + k]))
            og = 1.0 / (1.0 + math.exp(-z[2 * hidden + k]))
            g = math.tanh(z[3 * hidden + k])
            c[k] = fg * c[k] + ig * g
            h[k] = og * math.tanh(c[k])
        for k in range(hidden):
            loss += h[k] * h[k]
    return loss


def pair_energy(x, n: int):
    """A softened Coulomb energy of n particles (x: n x 3), over every pair once."""
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = x[i, 0] - x[j, 0]
            dy = x[i, 1] - x[j, 1]
            dz = x[i, 2] - x[j, 2]
            e += 1.0 / math.sqrt(dx * dx + dy * dy + dz * dz + 0.01)
    return e
