import numpy as np


def stacked(x: "f64[n]", y: "f64[n]", A: "f64[m, n]", B: "f64[k, n]"):
    S = np.stack([x, y**2], axis=1)
    R = np.stack((x, np.sin(y)))
    C = np.concatenate([A, B, A * A])
    H = np.hstack([x, y, x])
    V = np.vstack([A, x, B])
    W = np.column_stack([x, A.T, y])
    Q = np.concatenate((A.T, B.T), axis=1)
    return np.sum(S @ R) + np.sum(C**2) + np.sum(H * H) + np.sum(np.tanh(V)) + np.sum(W**3) + np.sum(np.cos(Q))
