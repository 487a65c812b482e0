import numpy as np

TAUS = np.array([0.1, 0.5, 0.9])


def pinball(r, tau):
    return np.maximum(tau * r, (tau - 1.0) * r)


def quantile_loss(W, b, X, y, alpha=0.01):
    pred = X @ W + b                      # (n, 3): one column per quantile
    r = y[:, None] - pred
    loss = pinball(r, TAUS).mean()
    # non-crossing penalty between neighbouring quantiles, smoothed with logaddexp
    gaps = pred[:, 1:] - pred[:, :-1]
    loss += alpha * np.sum(np.logaddexp(0.0, -gaps))
    loss += alpha * np.sum(np.log(np.cosh(W)))
    return loss


def probe_spec():
    rng = np.random.default_rng(64)
    X = rng.normal(size=(10, 2))
    y = X @ np.array([0.8, -0.5]) + rng.normal(size=10)
    W = rng.normal(size=(2, 3)) * 0.3
    b = np.array([-1.0, 0.0, 1.0])
    return dict(func="quantile_loss", wrt=["W", "b"], args=[W, b, X, y], kwargs={},
                idioms="multi-quantile pinball loss via np.maximum, module-level np.array constant, "
                       "y[:, None], np.logaddexp(0.0, x), log(cosh)")
