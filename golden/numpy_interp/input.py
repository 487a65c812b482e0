import numpy as np


def simulate(k, y0, t_end=2.0, n_steps=20):
    dt = t_end / n_steps
    ts = [0.0]
    ys = [y0]
    y = y0
    t = 0.0
    for _ in range(n_steps):
        y = y + dt * (-k * y)
        t = t + dt
        ts.append(t)
        ys.append(y)
    return ys, ts


def fit(k, y0, t_obs, y_obs: "f64[n]"):
    ys, ts = simulate(k, y0)
    pred = np.interp(t_obs, np.array(ts), np.array(ys))
    return np.sum((pred - y_obs) ** 2) + np.interp(0.7, np.array(ts), np.array(ys))
