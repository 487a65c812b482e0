import numpy as np


def cox_partial_nll(beta, X, time, event):
    # data sorted by increasing time; risk set of i is {j: time_j >= time_i}
    order = np.argsort(time)
    Xs = X[order]
    ev = event[order]
    eta = Xs @ beta
    risk = np.cumsum(np.exp(eta)[::-1])[::-1]
    return -np.sum(ev * (eta - np.log(risk)))


def piecewise_hazard_nll(log_h, edges, t, d):
    h = np.exp(log_h)
    widths = np.diff(edges)
    cum_h = np.concatenate(([0.0], np.cumsum(h * widths)))
    k = np.searchsorted(edges, t, side="right") - 1
    H = cum_h[k] + h[k] * (t - edges[k])
    return np.sum(H - d * np.log(h[k]))


def survival_nll(beta, log_h, X, time, event, edges):
    return cox_partial_nll(beta, X, time, event) + piecewise_hazard_nll(log_h, edges, time, event)


def probe_spec():
    rng = np.random.default_rng(65)
    X = rng.normal(size=(9, 2))
    time = rng.exponential(1.0, size=9)
    event = (rng.uniform(size=9) < 0.7).astype(float)
    edges = np.array([0.0, 0.5, 1.0, 2.0, 10.0])
    return dict(func="survival_nll", wrt=["beta", "log_h"],
                args=[np.array([0.3, -0.2]), np.array([-0.5, 0.0, 0.2, 0.1]), X, time, event, edges], kwargs={},
                idioms="Cox partial likelihood: np.argsort + fancy index, reversed cumsum x[::-1], "
                       "piecewise-constant hazard: np.diff, np.concatenate(([0.0], ...)), np.searchsorted, gather h[k]")
