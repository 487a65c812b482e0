import numpy as np


def pendulum_final_angle(theta0, length, damping=0.1, g=9.81, dt=0.01, T=2.0):
    n_steps = int(T / dt)
    theta = theta0
    omega = 0.0
    thetas = []
    for step in range(n_steps):
        alpha = -(g / length) * np.sin(theta) - damping * omega
        omega = omega + alpha * dt
        theta = theta + omega * dt
        thetas.append(theta)
    return np.mean(np.array(thetas) ** 2)


def probe_spec():
    return dict(func="pendulum_final_angle", wrt=["theta0", "length", "damping"], args=[0.5, 1.2],
                kwargs={}, idioms="int(T / dt) trip count, semi-implicit Euler, list of floats -> np.array")
