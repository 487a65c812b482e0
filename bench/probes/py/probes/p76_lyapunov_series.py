import numpy as np


def stationary_cov_trace(A, Q, n_terms=30):
    """Truncated series for the discrete Lyapunov solution P = sum_k A^k Q (A^k)^T, with in-place ops."""
    P = np.zeros_like(Q)
    Ak = np.eye(A.shape[0])
    for k in range(n_terms):
        P += Ak @ Q @ Ak.T
        Ak = Ak @ A
    P *= 0.5
    P += 0.5 * P.T
    X = Q.copy()
    for k in range(5):
        X = A @ X @ A.T + Q
    return np.trace(P) + np.sum(X * X)


def probe_spec():
    A = np.array([[0.5, 0.1, 0.0], [-0.2, 0.4, 0.15], [0.05, 0.0, 0.3]])
    Q = np.array([[1.0, 0.2, 0.0], [0.2, 0.8, 0.1], [0.0, 0.1, 0.5]])
    return dict(func="stationary_cov_trace", wrt=["A", "Q"], args=[A, Q], kwargs={},
                idioms="Lyapunov series: P += Ak @ Q @ Ak.T with Ak = Ak @ A rebound in loop, P *= 0.5, "
                       "P += 0.5 * P.T (aliasing in-place), X = A @ X @ A.T + Q iteration, np.trace")
