import numpy as np


def simulate_decay(k, y0, t_end=2.0, n_steps=100):
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


def decay_fit_loss(k, y0, t_obs, y_obs):
    ys, ts = simulate_decay(k, y0)
    ys = np.array(ys)
    ts = np.array(ts)
    pred = np.interp(t_obs, ts, ys)
    return np.sum((pred - y_obs) ** 2)


def probe_spec():
    t_obs = np.array([0.5, 1.0, 1.5])
    y_obs = np.array([1.2, 0.8, 0.5])
    return dict(func="decay_fit_loss", wrt=["k", "y0"], args=[0.9, 2.0, t_obs, y_obs], kwargs={},
                idioms="Euler loop appending to lists, helper returns lists, np.array(list), np.interp")
