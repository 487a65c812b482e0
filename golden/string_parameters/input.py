import numpy as np


def penalty(theta, kind):
    if kind in ("l2", "ridge"):
        return np.sum(theta**2)
    return np.sum(np.abs(theta))


def fit_loss(theta, X, y, lam, loss="huber", reduction="mean"):
    r = X @ theta - y
    if loss == "huber":
        total = np.sum(np.where(np.abs(r) <= 1.0, 0.5 * r**2, np.abs(r) - 0.5))
    elif loss != "absolute":
        total = np.sum(r**2)
    else:
        total = np.sum(np.abs(r))
    if reduction == "mean":
        total = total / len(y)
    return total + lam * penalty(theta, "l2") + lam * penalty(theta, "l1")
