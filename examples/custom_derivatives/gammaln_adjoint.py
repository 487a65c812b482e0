"""The custom adjoint of scipy.special.gammaln: d/dx gammaln(x) = digamma(x).

s2sad calls grad_gammaln(x, d_return) where the primal called gammaln(x), with d_return the
adjoint of gammaln's result, and adds what it returns to the adjoint of x.
"""

from scipy.special import digamma


def grad_gammaln(x, d_return=1.0):
    return d_return * digamma(x)
