"""Machine learning from scratch: models and losses written with NumPy and loops, as in courses."""

import math

import numpy as np


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logistic_loss(w, X, y):
    p = sigmoid(X @ w)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def linear_regression_loss(w, b, X, y):
    residual = X @ w + b - y
    return 0.5 * np.dot(residual, residual) / len(y)


def ridge_loss(w, X, y, lam):
    r = X @ w - y
    return np.sum(r**2) + lam * np.sum(w**2)


def softmax_cross_entropy(logits, label):
    shifted = logits - np.max(logits)
    log_probs = shifted - np.log(np.sum(np.exp(shifted)))
    return -log_probs[label]


def hinge_loss(w, X, y):
    margins = 1 - y * (X @ w)
    return np.sum(np.maximum(0, margins))


def mlp_forward(W1, b1, W2, b2, x):
    h = np.tanh(W1 @ x + b1)
    out = W2 @ h + b2
    return np.sum(out**2)


def mlp_relu(W1, W2, x):
    h = np.maximum(W1 @ x, 0.0)
    return np.sum(W2 @ h)


def layer_norm(x, gamma, beta):
    mu = np.mean(x)
    var = np.mean((x - mu) ** 2)
    y = gamma * (x - mu) / np.sqrt(var + 1e-5) + beta
    return np.sum(y**2)


def attention_scores(q, K, V):
    scores = K @ q / math.sqrt(len(q))
    weights = np.exp(scores - np.max(scores))
    weights = weights / np.sum(weights)
    return np.sum(weights @ V)


def rnn_loop(Wh, Wx, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(Wh @ h + Wx @ xs[t])
    return np.sum(h)


def gru_like_cell(Wz, Wh, x, h):
    z = sigmoid(Wz @ x)
    cand = np.tanh(Wh @ x)
    h_new = (1 - z) * h + z * cand
    return np.sum(h_new**2)


def conv1d_valid(x, k):
    n = len(x) - len(k) + 1
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.sum(x[i : i + len(k)] * k)
    return np.sum(out**2)


def conv1d_loops(x, k):
    n = len(x)
    m = len(k)
    s = 0.0
    for i in range(n - m + 1):
        acc = 0.0
        for j in range(m):
            acc += x[i + j] * k[j]
        s += acc * acc
    return s


def batch_norm_loss(X):
    mu = X.mean(axis=0)
    sd = np.sqrt(X.var(axis=0) + 1e-5)
    Z = (X - mu) / sd
    return np.sum(Z**3)


def soft_kmeans(X, C, beta):
    total = 0.0
    for i in range(X.shape[0]):
        d = np.sum((C - X[i]) ** 2, axis=1)
        w = np.exp(-beta * d)
        total += np.sum(w * d) / np.sum(w)
    return total


def gaussian_kernel_sum(X, ell):
    n = X.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(n):
            d = X[i] - X[j]
            s += np.exp(-np.dot(d, d) / (2 * ell**2))
    return s


def pairwise_distances(X):
    total = 0.0
    for i in range(len(X)):
        for j in range(i + 1, len(X)):
            total += np.sqrt(np.sum((X[i] - X[j]) ** 2) + 1e-6)
    return total


def embedding_lookup(E, idx):
    s = 0.0
    for i in idx:
        s += np.sum(E[i] ** 2)
    return s


def focal_loss(p, y, gamma):
    pt = np.where(y == 1, p, 1 - p)
    return -np.sum((1 - pt) ** gamma * np.log(pt))


def cosine_similarity(a, b):
    return np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))


def triplet_loss(a, p, n, margin):
    dp = np.sum((a - p) ** 2)
    dn = np.sum((a - n) ** 2)
    return max(dp - dn + margin, 0.0)


def weight_decay_sgd_step(w, g, lr, decay):
    w_new = w - lr * (g + decay * w)
    return np.sum(w_new**2)


def adam_like_update(w, g, m, v):
    beta1, beta2 = 0.9, 0.999
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    w = w - 0.01 * m / (np.sqrt(v) + 1e-8)
    return np.sum(w * w)


def softplus(z):
    return np.log(1.0 + np.exp(z))


def softplus_regression(w, X, y, temperature):
    m = len(y)
    pred = softplus(X @ w) / softplus(temperature)
    return np.sum((pred - y) ** 2) / m


def dense(W, x, b):
    return np.tanh(W @ x + b)


def two_layer_mlp(W1, b1, W2, b2, x, decay):
    h = dense(W1, x, b1)
    out = dense(W2, h, b2)
    penalty = np.sum(W1**2) + np.sum(b1**2) + np.sum(W2**2) + np.sum(b2**2)
    return np.sum(out**2) + decay * penalty


def row_norms(X):
    n, d = X.shape
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(d):
            s += X[i, j] ** 2
        out[i] = np.sqrt(s + 1e-8)
    return out


def row_norm_penalty(X, target):
    r = row_norms(X)
    return np.sum((r - target) ** 2)


def gated_sum(Wg, X):
    total = 0.0
    for t in range(X.shape[0]):
        g = sigmoid(Wg @ X[t, :])
        total += np.sum(g * X[t, :]) + sigmoid(total)
    return total
