import numpy as np


def euler_logistic(r, K, y0, dt=0.05, n_steps=80):
    ys = [y0]
    for i in range(n_steps):
        y = ys[-1]
        ys.append(y + dt * r * y * (1 - y / K))
    return sum(ys) * dt


def probe_spec():
    return dict(func="euler_logistic", wrt=["r", "K", "y0"], args=[1.3, 10.0, 0.5], kwargs={},
                idioms="list append reading ys[-1], sum(list), defaults")
