"""Small simulations as scientists write them: explicit loops over time steps and grid points."""

import math

import numpy as np


def pendulum_euler(theta0, omega0, g, dt, steps):
    theta, omega = theta0, omega0
    for _ in range(steps):
        omega = omega - g * math.sin(theta) * dt
        theta = theta + omega * dt
    return theta


def spring_chain_energy(x, k):
    e = 0.0
    for i in range(len(x) - 1):
        e += 0.5 * k * (x[i + 1] - x[i] - 1.0) ** 2
    return e


def heat_equation_1d(u, alpha, steps):
    u = u.copy()
    n = len(u)
    for _ in range(steps):
        new = u.copy()
        for i in range(1, n - 1):
            new[i] = u[i] + alpha * (u[i - 1] - 2 * u[i] + u[i + 1])
        u = new
    return np.sum(u**2)


def heat_in_place(u, alpha, steps):
    n = len(u)
    for _ in range(steps):
        for i in range(1, n - 1):
            u[i] = u[i] + alpha * (u[i - 1] - 2 * u[i] + u[i + 1])
    return np.sum(u)


def wave_leapfrog(u, v, c, dt, steps):
    n = len(u)
    for _ in range(steps):
        a = np.zeros(n)
        for i in range(1, n - 1):
            a[i] = c * c * (u[i - 1] - 2 * u[i] + u[i + 1])
        v = v + dt * a
        u = u + dt * v
    return np.sum(u * u)


def lotka_volterra_rk4(x0, y0, a, b, dt, steps):
    x, y = x0, y0
    for _ in range(steps):
        k1x, k1y = a * x - b * x * y, b * x * y - a * y
        x2, y2 = x + 0.5 * dt * k1x, y + 0.5 * dt * k1y
        k2x, k2y = a * x2 - b * x2 * y2, b * x2 * y2 - a * y2
        x3, y3 = x + 0.5 * dt * k2x, y + 0.5 * dt * k2y
        k3x, k3y = a * x3 - b * x3 * y3, b * x3 * y3 - a * y3
        x4, y4 = x + dt * k3x, y + dt * k3y
        k4x, k4y = a * x4 - b * x4 * y4, b * x4 * y4 - a * y4
        x = x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        y = y + dt / 6 * (k1y + 2 * k2y + 2 * k3y + k4y)
    return x + y


def projectile_range(v0, angle, drag, dt):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    steps = 0
    while y >= 0.0 and steps < 1000:
        vx -= drag * vx * dt
        vy -= (9.81 + drag * vy) * dt
        x += vx * dt
        y += vy * dt
        steps += 1
    return x


def nbody_potential(pos, mass):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.sqrt(np.sum((pos[i] - pos[j]) ** 2) + 0.01)
            e -= mass[i] * mass[j] / r
    return e


def lennard_jones(pos):
    e = 0.0
    n = len(pos)
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = d[0] ** 2 + d[1] ** 2 + 1.5
            inv6 = 1.0 / r2**3
            e += 4.0 * (inv6 * inv6 - inv6)
    return e


def verlet_oscillator(x0, v0, k, dt, steps):
    x, v = x0, v0
    a = -k * x
    for _ in range(steps):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = -k * x
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
    return x * x + v * v


def laplacian_2d_energy(u):
    n, m = u.shape
    e = 0.0
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]
            e += lap * lap
    return e


def jacobi_2d_slices(u, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return np.sum(u**2)


def advection_upwind(u, c, steps):
    for _ in range(steps):
        u[1:] = u[1:] - c * (u[1:] - u[:-1])
    return np.sum(u * u)


def gravity_potential_grid(masses, xs, ys, px, py):
    phi = 0.0
    for i in range(len(masses)):
        phi -= masses[i] / math.sqrt((xs[i] - px) ** 2 + (ys[i] - py) ** 2 + 0.1)
    return phi


def damped_oscillator_trajectory(x0, gamma, omega, dt, steps):
    xs = []
    x, v = x0, 0.0
    for _ in range(steps):
        a = -2 * gamma * v - omega**2 * x
        v += a * dt
        x += v * dt
        xs.append(x)
    return sum(xi * xi for xi in xs)


def logistic_map(r, x0, steps):
    x = x0
    for _ in range(steps):
        x = r * x * (1 - x)
    return x


def radiative_cooling(T, eps, dt, steps):
    sigma = 5.67e-8
    for _ in range(steps):
        T = T - dt * eps * sigma * T**4 * 1e-8
    return T


def kinetic_energy(v, m):
    return 0.5 * np.sum(m * np.sum(v * v, axis=1))
