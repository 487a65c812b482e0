import math


def subtract(x, mu, out, d):
    for j in range(d):
        out[j] = x[j] - mu[j]


def sqnorm(v, d):
    s = 0.0
    for j in range(d):
        s += v[j] * v[j]
    return s


def mixture(x, mu, tmp, n, k, d):
    """A helper writes a work array that the next iteration overwrites: each reversed
    iteration needs the work array as that iteration left it."""
    total = 0.0
    for i in range(n):
        best = 0.0
        for c in range(k):
            subtract(x[i * d:], mu[c * d:], tmp, d)
            best += math.exp(-0.5 * sqnorm(tmp, d))
        total += math.log(best)
    return total
