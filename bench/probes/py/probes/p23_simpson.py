import numpy as np


def simpson(y, dx):
    return dx / 3 * (y[0] + y[-1] + 4 * np.sum(y[1:-1:2]) + 2 * np.sum(y[2:-1:2]))


def energy_integral(A, omega, T=2.0, n=101):
    t = np.linspace(0, T, n)
    dx = t[1] - t[0]
    y = (A * np.sin(omega * t)) ** 2
    return simpson(y, dx)


def probe_spec():
    return dict(func="energy_integral", wrt=["A", "omega"], args=[1.3, 2.2], kwargs={},
                idioms="Simpson with step slices y[1:-1:2], linspace spacing t[1]-t[0]")
