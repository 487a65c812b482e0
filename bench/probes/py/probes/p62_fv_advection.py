import numpy as np


def minmod(a, b):
    return np.where(a * b > 0.0, np.where(np.abs(a) < np.abs(b), a, b), 0.0)


def advect_muscl(u0, c, target, nsteps=5):
    u = u0.copy()
    for _ in range(nsteps):
        du_left = u - np.roll(u, 1)
        du_right = np.roll(u, -1) - u
        slope = minmod(du_left, du_right)
        u_face = u + 0.5 * (1.0 - c) * slope
        flux = c * u_face
        u = u - (flux - np.roll(flux, 1))
    return 0.5 * np.sum((u - target) ** 2)


def probe_spec():
    n = 16
    xg = np.linspace(0, 1, n, endpoint=False)
    u0 = np.exp(-40 * (xg - 0.4) ** 2) + 0.03 * np.cos(7 * xg)
    target = np.exp(-40 * (xg - 0.5) ** 2)
    return dict(func="advect_muscl", wrt=["u0", "c"], args=[u0, 0.45, target], kwargs={},
                idioms="finite-volume MUSCL step, periodic np.roll, minmod limiter via nested np.where / np.abs")
