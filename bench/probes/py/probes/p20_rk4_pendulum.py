import math


def pendulum_rhs(theta, omega, g, L):
    return omega, -(g / L) * math.sin(theta)


def rk4_pendulum(theta0, omega0, L, g=9.81, dt=0.01, steps=200):
    theta, omega = theta0, omega0
    for _ in range(steps):
        k1t, k1w = pendulum_rhs(theta, omega, g, L)
        k2t, k2w = pendulum_rhs(theta + 0.5 * dt * k1t, omega + 0.5 * dt * k1w, g, L)
        k3t, k3w = pendulum_rhs(theta + 0.5 * dt * k2t, omega + 0.5 * dt * k2w, g, L)
        k4t, k4w = pendulum_rhs(theta + dt * k3t, omega + dt * k3w, g, L)
        theta += dt / 6 * (k1t + 2 * k2t + 2 * k3t + k4t)
        omega += dt / 6 * (k1w + 2 * k2w + 2 * k3w + k4w)
    return theta


def probe_spec():
    return dict(func="rk4_pendulum", wrt=["theta0", "omega0", "L"], args=[0.8, 0.0, 1.5], kwargs={},
                idioms="math.sin, helper returning tuple, tuple unpack, default args, scalar RK4")
