"""Vectorized NumPy, the way tutorials and notebooks write it: no annotations, whole-array code."""

import numpy as np


def sum_of_squares(x):
    return np.sum(x * x)


def l2_norm(x):
    return np.sqrt(np.sum(x**2))


def normalize(x):
    return x / np.linalg.norm(x)


def softmax(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


def log_softmax_sum(x):
    m = np.max(x)
    return np.sum(x - m - np.log(np.sum(np.exp(x - m))))


def logsumexp(x):
    m = x.max()
    return m + np.log(np.exp(x - m).sum())


def quadratic_form(A, x):
    return x @ A @ x


def matvec_tanh(W, b, x):
    return np.sum(np.tanh(W @ x + b))


def dot_then_tanh(x, W):
    return np.sum(np.tanh(np.dot(x, W)))


def frobenius(A):
    return np.sqrt(np.sum(A * A))


def trace_of_product(A, B):
    return np.trace(A @ B)


def mean_squared_error(pred, target):
    return np.mean((pred - target) ** 2)


def huber(r, delta):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r**2, delta * (a - 0.5 * delta)))


def smooth_abs(x):
    return np.sum(np.sqrt(x * x + 1e-3))


def polynomial(c, x):
    total = 0.0
    for k in range(len(c)):
        total = total + c[k] * x**k
    return np.sum(total)


def horner(c, x):
    y = np.zeros_like(x)
    for k in range(len(c) - 1, -1, -1):
        y = y * x + c[k]
    return np.sum(y)


def cumulative_sum_loss(x):
    return np.sum(np.cumsum(x) ** 2)


def variance(x):
    return np.var(x)


def standard_score_sum(x):
    return np.sum(((x - x.mean()) / x.std()) ** 3)


def outer_product_sum(u, v):
    return np.sum(np.outer(u, v) ** 2)


def clip_then_square(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2)


def maximum_with_zero(x):
    return np.sum(np.maximum(x, 0.0) ** 2)


def row_sums_squared(A):
    return np.sum(np.sum(A, axis=1) ** 2)


def column_means(A):
    return np.sum(A.mean(axis=0) ** 2)


def transpose_product(A):
    return np.sum(A.T @ A)


def elementwise_chain(x):
    return np.sum(np.exp(np.sin(x)) * np.cos(x) + np.log1p(x * x))


def stacked_features(x):
    F = np.stack([x, x**2, np.sin(x)])
    return np.sum(F @ F.T)


def concatenated(x, y):
    z = np.concatenate([x, y])
    return np.sum(z * z)


def reshape_and_reduce(x):
    return np.sum(x.reshape(2, 3) ** 2 @ np.ones(3))


def determinant(A):
    return np.linalg.det(A)


def solve_and_sum(A, b):
    return np.sum(np.linalg.solve(A, b))


def inverse_trace(A):
    return np.trace(np.linalg.inv(A))


def einsum_bilinear(x, A, y):
    return np.einsum("i,ij,j->", x, A, y)


def product_of_entries(x):
    return np.prod(x)


def ufunc_spellings(x, y):
    return np.sum(np.multiply(np.add(x, y), np.power(x, 2)) / np.add(np.abs(y), 1.0))
