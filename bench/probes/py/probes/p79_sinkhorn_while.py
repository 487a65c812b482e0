import numpy as np


def sinkhorn_cost(C, a, b, eps=0.5, tol=1e-13, max_iter=2000):
    """Entropic optimal transport cost by Sinkhorn iterations until the marginal error is below tol."""
    K = np.exp(-C / eps)
    u = np.ones(a.shape[0])
    v = np.ones(b.shape[0])
    err = 1.0
    it = 0
    while err > tol and it < max_iter:
        v = b / (K.T @ u)
        u = a / (K @ v)
        err = np.abs(v * (K.T @ u) - b).sum()
        it += 1
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)


def probe_spec():
    grid = np.linspace(0.0, 1.0, 4)
    grid2 = np.linspace(0.1, 0.9, 5)
    C = (grid[:, None] - grid2[None, :]) ** 2
    a = np.array([0.1, 0.4, 0.3, 0.2])
    b = np.array([0.25, 0.15, 0.2, 0.3, 0.1])
    return dict(func="sinkhorn_cost", wrt=["C", "eps"], args=[C, a, b], kwargs={"eps": 0.3},
                idioms="Sinkhorn: while err > tol and it < max_iter, u/v rebound through K @ v and K.T @ u, "
                       ".sum() method of np.abs, u[:, None] * K * v[None, :], np.linspace grids in probe")
