import numpy as np


def gp_style_objective(log_ell, log_amp, x, y, noise=0.1):
    """Objective written with local helper functions (closures) and tuple-returning helpers."""
    n = x.shape[0]

    def kernel(a, b):
        d = a[:, None] - b[None, :]
        return np.exp(2.0 * log_amp) * np.exp(-0.5 * d ** 2 / np.exp(2.0 * log_ell))

    def fit_stats(K):
        alpha = np.linalg.solve(K, y)
        return alpha, y @ alpha

    K = kernel(x, x) + noise ** 2 * np.eye(n)
    alpha, quad = fit_stats(K)
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * quad + 0.5 * logdet + 0.01 * np.sum(alpha ** 2)


def probe_spec():
    x = np.linspace(0.0, 3.0, 6)
    y = np.sin(x) + 0.1 * np.cos(3.0 * x)
    return dict(func="gp_style_objective", wrt=["log_ell", "log_amp", "noise"], args=[0.1, -0.2, x, y],
                kwargs={"noise": 0.3},
                idioms="local def helpers (closures) reading enclosing log_amp / log_ell / y, a local helper "
                       "returning a tuple unpacked by the caller, np.linalg.slogdet unpacked, noise kwarg in --wrt")
