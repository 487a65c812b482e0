import numpy as np
from scipy.special import logsumexp


def gmm_loglik(x, logits, means, log_sigmas):
    """1-D Gaussian mixture log-likelihood."""
    log_w = logits - logsumexp(logits)
    sigmas = np.exp(log_sigmas)
    diff = x[:, None] - means[None, :]
    log_comp = -0.5 * (diff / sigmas) ** 2 - log_sigmas - 0.5 * np.log(2 * np.pi)
    return np.sum(logsumexp(log_comp + log_w, axis=1))


def probe_spec():
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.normal(-1, 0.5, 5), rng.normal(2, 1.0, 5)])
    logits = np.array([0.1, -0.2, 0.3])
    means = np.array([-1.0, 0.5, 2.0])
    log_sigmas = np.array([-0.5, 0.0, 0.1])
    return dict(func="gmm_loglik", wrt=["logits", "means", "log_sigmas"],
                args=[x, logits, means, log_sigmas], kwargs={},
                idioms="scipy logsumexp axis=1, x[:, None] - means[None, :]")
