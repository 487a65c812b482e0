"""The negative log-likelihood of counts k under Poisson rates exp(theta): a loop over
scipy.special.gammaln, whose source s2sad cannot see. Its custom adjoint is in
gammaln_adjoint.py:

    s2sad grad examples/custom_derivatives/poisson.py --wrt theta,k \
        --derivatives examples/custom_derivatives/gammaln_adjoint.py
"""

import numpy as np
from scipy.special import gammaln


def poisson(theta, k, n: int):
    s = 0.0
    for i in range(n):
        rate = np.exp(theta[i])
        s += rate - k[i] * theta[i] + gammaln(k[i] + 1.0)
    return s
