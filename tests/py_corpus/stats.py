"""Statistics and probability as analysts write them: log-likelihoods, estimators, time series."""

import math

import numpy as np
from scipy import special


def gaussian_log_likelihood(x, mu, sigma):
    n = len(x)
    return -0.5 * n * math.log(2 * math.pi * sigma**2) - np.sum((x - mu) ** 2) / (2 * sigma**2)


def student_t_log_pdf(x, nu):
    return np.sum(
        special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
        - (nu + 1) / 2 * np.log1p(x**2 / nu)
    )


def poisson_log_likelihood(lam, k):
    return np.sum(k * np.log(lam) - lam - special.gammaln(k + 1))


def beta_log_pdf(x, a, b):
    return np.sum((a - 1) * np.log(x) + (b - 1) * np.log(1 - x)) - len(x) * special.betaln(a, b)


def mixture_log_likelihood(x, w, mu, sigma):
    total = 0.0
    for i in range(len(x)):
        p = 0.0
        for k in range(len(w)):
            p += w[k] * math.exp(-0.5 * ((x[i] - mu[k]) / sigma[k]) ** 2) / (sigma[k] * math.sqrt(2 * math.pi))
        total += math.log(p)
    return total


def kernel_density(x, data, h):
    total = 0.0
    for xi in data:
        total += math.exp(-0.5 * ((x - xi) / h) ** 2)
    return total / (len(data) * h * math.sqrt(2 * math.pi))


def moving_average_loss(x, window):
    out = np.convolve(x, np.ones(window) / window, mode="valid")
    return np.sum(out**2)


def ewma(x, alpha):
    s = x[0]
    for t in range(1, len(x)):
        s = alpha * x[t] + (1 - alpha) * s
    return s


def autocorrelation(x, lag):
    m = np.mean(x)
    num = np.sum((x[lag:] - m) * (x[:-lag] - m))
    den = np.sum((x - m) ** 2)
    return num / den


def ar1_negative_log_likelihood(phi, sigma, y):
    nll = 0.0
    for t in range(1, len(y)):
        e = y[t] - phi * y[t - 1]
        nll += 0.5 * e * e / (sigma * sigma) + math.log(sigma)
    return nll


def weighted_mean(x, w):
    return np.sum(w * x) / np.sum(w)


def pearson_correlation(x, y):
    xm = x - np.mean(x)
    ym = y - np.mean(y)
    return np.sum(xm * ym) / np.sqrt(np.sum(xm**2) * np.sum(ym**2))


def skewness(x):
    m = np.mean(x)
    s = np.std(x)
    return np.mean(((x - m) / s) ** 3)


def log_normal_pdf_sum(x, mu, sigma):
    return np.sum(-np.log(x * sigma * np.sqrt(2 * np.pi)) - (np.log(x) - mu) ** 2 / (2 * sigma**2))


def logistic_cdf_sum(x, loc, scale):
    return np.sum(1.0 / (1.0 + np.exp(-(x - loc) / scale)))


def softplus_sum(x):
    return np.sum(np.log1p(np.exp(x)))


def entropy(p):
    q = p / np.sum(p)
    return -np.sum(q * np.log(q))


def kl_divergence(p, q):
    return np.sum(p * np.log(p / q))


def empirical_cdf_smooth(x, t, h):
    return np.mean(special.expit((t - x) / h))


def bayesian_linear_evidence(w, X, y, alpha, beta):
    r = y - X @ w
    return 0.5 * beta * np.dot(r, r) + 0.5 * alpha * np.dot(w, w)


def erf_integral(x):
    return np.sum(special.erf(x) * x)


def running_variance_welford(x):
    mean = 0.0
    m2 = 0.0
    n = 0
    for v in x:
        n += 1
        delta = v - mean
        mean += delta / n
        m2 += delta * (v - mean)
    return m2 / (n - 1)
