import numpy as np
from scipy.special import gammaln


def student_t_nll(nu, loc, scale, x):
    z = (x - loc) / scale
    logpdf = (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
              - np.log(scale) - (nu + 1) / 2 * np.log1p(z ** 2 / nu))
    return -np.sum(logpdf)


def probe_spec():
    x = np.array([0.3, -1.2, 2.5, 0.1, -0.4, 4.0])
    return dict(func="student_t_nll", wrt=["nu", "loc", "scale"], args=[4.0, 0.2, 1.1, x], kwargs={},
                idioms="gammaln of scalar params, np.log1p, data last")
