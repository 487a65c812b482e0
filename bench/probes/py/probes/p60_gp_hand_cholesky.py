import math

import numpy as np


def cholesky(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            s = A[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            if i == j:
                L[i, j] = math.sqrt(s)
            else:
                L[i, j] = s / L[j, j]
    return L


def gp_marginal_nll(log_ell, log_sf, log_sn, x, y):
    ell = math.exp(log_ell)
    sf2 = math.exp(2 * log_sf)
    sn2 = math.exp(2 * log_sn)
    n = len(x)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            K[i, j] = sf2 * math.exp(-0.5 * (x[i] - x[j]) ** 2 / ell ** 2)
        K[i, i] += sn2
    L = cholesky(K)
    # forward substitution L z = y
    z = np.zeros(n)
    for i in range(n):
        z[i] = (y[i] - np.dot(L[i, :i], z[:i])) / L[i, i]
    logdet = 0.0
    for i in range(n):
        logdet += 2.0 * math.log(L[i, i])
    return 0.5 * np.dot(z, z) + 0.5 * logdet + 0.5 * n * math.log(2 * math.pi)


def probe_spec():
    rng = np.random.default_rng(60)
    x = np.sort(rng.uniform(-2, 2, size=6))
    y = np.sin(2 * x) + 0.1 * rng.normal(size=6)
    return dict(func="gp_marginal_nll", wrt=["log_ell", "log_sf", "log_sn", "y"],
                args=[-0.3, 0.1, -1.2, x, y], kwargs={},
                idioms="hand-written Cholesky helper (triple loop, math.sqrt), forward substitution with "
                       "np.dot of growing slices L[i, :i], math.log logdet")
