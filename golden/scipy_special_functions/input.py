import numpy as np
import scipy.special as sp
from scipy.special import expit, gammaln


def log_terms(x: "f64[n]", a: float):
    """scipy.special's functions of differentiable arguments, elementwise and on numbers."""
    ys = gammaln(x + a) - sp.digamma(x) * sp.erf(x - 1.0) + expit(2.0 * x) * sp.erfc(x)
    zs = sp.logit(x / 4.0) + sp.xlogy(x, x + 1.0) - sp.betaln(x, a)
    s = gammaln(a) + sp.digamma(a) + expit(-a) + sp.betaln(a, 2.0) + sp.xlogy(a, a + 1.0) + sp.logit(a / 2.0)
    return np.sum(ys * zs) + s
