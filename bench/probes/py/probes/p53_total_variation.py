import numpy as np


def tv_denoise_objective(u, f, lam=0.1, eps=1e-6):
    dx = np.diff(u, axis=1)
    dy = np.diff(u, axis=0)
    tv = np.sum(np.sqrt(dx[:-1, :] ** 2 + dy[:, :-1] ** 2 + eps))
    return 0.5 * np.sum((u - f) ** 2) + lam * tv


def probe_spec():
    rng = np.random.default_rng(31)
    f = rng.normal(size=(5, 6))
    u = f + 0.1 * rng.normal(size=(5, 6))
    return dict(func="tv_denoise_objective", wrt=["u", "lam"], args=[u, f], kwargs={},
                idioms="np.diff axis=0/1 on image, isotropic TV")
