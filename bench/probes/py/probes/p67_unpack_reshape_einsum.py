import numpy as np


def weighted_lsq(params, X, y, sample_w):
    n, d = X.shape
    w, b = params[:d], params[d]
    w_col = w.reshape(-1, 1)
    pred = (X @ w_col).reshape(-1) + b
    total = 0.0
    for i, (xi, yi) in enumerate(zip(X, y)):
        r = pred[i] - yi
        total += sample_w[i] * r ** 2
    gram = np.einsum("ij,ik->jk", X, X) / n
    reg = w @ gram @ w
    XtX = X.T @ X
    tr = np.einsum("ii->", XtX) / n
    return total / n + 0.1 * reg / tr


def probe_spec():
    rng = np.random.default_rng(67)
    X = rng.normal(size=(7, 3))
    y = rng.normal(size=7)
    params = np.array([0.2, -0.4, 0.7, 0.1])
    sw = np.linspace(0.5, 1.5, 7)
    return dict(func="weighted_lsq", wrt=["params"], args=[params, X, y, sw], kwargs={},
                idioms="n, d = X.shape, params[:d] / params[d] split, w.reshape(-1, 1), (..).reshape(-1), "
                       "for i, (xi, yi) in enumerate(zip(X, y)), einsum ij,ik->jk and ii->, X.T @ X")
