import numpy as np


def kalman_loglik(log_q, log_r, ys, dt=0.1):
    q = np.exp(log_q)
    r = np.exp(log_r)
    F = np.array([[1.0, dt], [0.0, 1.0]])
    Q = q * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    H = np.array([1.0, 0.0])
    x = np.zeros(2)
    P = np.eye(2)
    ll = 0.0
    for y in ys:
        # predict
        x = F @ x
        P = F @ P @ F.T + Q
        # update
        S = H @ P @ H + r
        K = P @ H / S
        v = y - H @ x
        x = x + K * v
        P = P - np.outer(K, H @ P)
        ll += -0.5 * (np.log(2 * np.pi * S) + v ** 2 / S)
    return -ll


def probe_spec():
    rng = np.random.default_rng(61)
    t = np.arange(12) * 0.1
    ys = 0.5 * t + 0.3 * np.sin(3 * t) + 0.05 * rng.normal(size=12)
    return dict(func="kalman_loglik", wrt=["log_q", "log_r", "ys"], args=[-1.0, -2.0, ys], kwargs={},
                idioms="Kalman filter, 2x2 np.array literals, F @ P @ F.T, np.outer, state rebound in for-over-array loop")
