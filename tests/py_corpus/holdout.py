"""A second set of ordinary numerical functions, written after the first without looking at what
s2sad supports: finance, signal processing, optimization test problems, physics, ML and
statistics snippets in the styles scientists use. It measures how well the mechanisms built for
the first set carry to code they were not built for."""

import math

import numpy as np


def black_scholes_call(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    cdf1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    cdf2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    return S * cdf1 - K * math.exp(-r * T) * cdf2


def portfolio_variance(w, cov):
    return w @ cov @ w


def sharpe_ratio(w, mu, cov, rf):
    ret = np.dot(w, mu) - rf
    vol = np.sqrt(w @ cov @ w)
    return ret / vol


def discounted_cashflows(cf, rate):
    total = 0.0
    for t, c in enumerate(cf):
        total += c / (1.0 + rate) ** (t + 1)
    return total


def moving_average(x, window):
    out = np.zeros(len(x) - window + 1)
    for i in range(len(out)):
        out[i] = np.mean(x[i : i + window])
    return np.sum(out**2)


def fir_filter(x, h):
    n = len(x)
    m = len(h)
    y = np.zeros(n)
    for i in range(n):
        for k in range(m):
            if i - k >= 0:
                y[i] += h[k] * x[i - k]
    return np.sum(y * y)


def exponential_smoothing(x, alpha):
    s = x[0]
    for t in range(1, len(x)):
        s = alpha * x[t] + (1 - alpha) * s
    return s


def total_variation(u):
    return np.sum(np.abs(np.diff(u)))


def smoothness_penalty(u, lam):
    d = u[1:] - u[:-1]
    return lam * np.sum(d**2) + np.sum(u**2)


def rastrigin(x):
    A = 10.0
    return A * len(x) + np.sum(x**2 - A * np.cos(2 * np.pi * x))


def ackley(x):
    n = len(x)
    s1 = np.sum(x**2)
    s2 = np.sum(np.cos(2.0 * math.pi * x))
    return -20.0 * np.exp(-0.2 * np.sqrt(s1 / n)) - np.exp(s2 / n) + 20.0 + math.e


def styblinski_tang(x):
    return 0.5 * np.sum(x**4 - 16 * x**2 + 5 * x)


def beale(x, y):
    return (1.5 - x + x * y) ** 2 + (2.25 - x + x * y**2) ** 2 + (2.625 - x + x * y**3) ** 2


def spring_chain_energy(pos, k, rest):
    e = 0.0
    for i in range(len(pos) - 1):
        stretch = pos[i + 1] - pos[i] - rest
        e += 0.5 * k * stretch * stretch
    return e


def projectile_range(v0, angle, g):
    return v0**2 * math.sin(2 * angle) / g


def pendulum_energy(theta, omega, L, m):
    g = 9.81
    return 0.5 * m * (L * omega) ** 2 + m * g * L * (1 - np.cos(theta))


def euler_integrate_decay(y0, k, steps):
    y = y0
    dt = 0.01
    for _ in range(steps):
        y = y - dt * k * y
    return y


def gravitational_potential(pos, mass):
    n = pos.shape[0]
    U = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.linalg.norm(pos[i] - pos[j])
            U -= mass[i] * mass[j] / r
    return U


def cross_entropy(logits, target):
    z = logits - np.max(logits)
    logp = z - np.log(np.sum(np.exp(z)))
    return -np.sum(target * logp)


def binary_cross_entropy(p, y):
    eps = 1e-12
    return -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))


def linear_regression_mse(w, b, X, y):
    pred = X.dot(w) + b
    return ((pred - y) ** 2).mean()


def two_layer_relu(W1, W2, x):
    h = W1 @ x
    h = np.where(h > 0, h, 0.01 * h)
    return np.sum(np.tanh(W2 @ h))


def l1_regularized(w, X, y, alpha):
    r = y - X @ w
    return 0.5 * r @ r + alpha * np.sum(np.abs(w))


def kmeans_inertia(X, C):
    total = 0.0
    for x in X:
        dists = [np.sum((x - c) ** 2) for c in C]
        total += min(dists)
    return total


def gaussian_nll(x, mu, log_sigma):
    sigma = np.exp(log_sigma)
    return np.sum(np.log(sigma) + 0.5 * ((x - mu) / sigma) ** 2)


def weighted_variance(x, w):
    m = np.sum(w * x) / np.sum(w)
    return np.sum(w * (x - m) ** 2) / np.sum(w)


def log_likelihood_ar1(x, phi, sigma):
    resid = x[1:] - phi * x[:-1]
    n = len(resid)
    return -0.5 * n * np.log(2 * np.pi * sigma**2) - np.sum(resid**2) / (2 * sigma**2)


def geometric_mean(x):
    return np.exp(np.mean(np.log(x)))


def harmonic_sum(x):
    s = 0
    for v in x:
        s = s + 1.0 / v
    return len(x) / s


def logistic_growth(r, K, P0, t):
    return K / (1 + ((K - P0) / P0) * np.exp(-r * t))


def stable_softplus_sum(x):
    return np.sum(np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))))


def rbf_interpolant(x, centers, weights, eps):
    r = np.abs(x - centers)
    return np.sum(weights * np.exp(-((eps * r) ** 2)))


def trapezoid_integral(y, dx):
    return dx * (np.sum(y) - 0.5 * (y[0] + y[-1]))


def bilinear_form(x, A, y):
    return x @ A @ y


def matrix_power_trace(A):
    B = A @ A
    return np.trace(B @ A)


def normalized_dot(u, v):
    return np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))


def cubic_spline_energy(c):
    e = 0.0
    for i in range(1, len(c) - 1):
        e += (c[i - 1] - 2 * c[i] + c[i + 1]) ** 2
    return e


def lotka_volterra_step(x, y, a, b, c, d):
    dt = 0.01
    for _ in range(10):
        dx = a * x - b * x * y
        dy = d * x * y - c * y
        x = x + dt * dx
        y = y + dt * dy
    return x + y
