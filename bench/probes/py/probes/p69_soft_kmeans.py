import numpy as np


def logsumexp_rows(a):
    m = np.max(a, axis=1)
    return m + np.log(np.sum(np.exp(a - m[:, None]), axis=1))


def soft_kmeans_free_energy(C, log_pi, X, beta=2.0):
    sq = np.sum(X ** 2, 1)[:, None] - 2.0 * X @ C.T + np.sum(C ** 2, 1)[None, :]
    log_prior = log_pi - logsumexp_rows(log_pi[None, :])[0]
    logits = log_prior[None, :] - beta * sq
    lse = logsumexp_rows(logits)
    resp = np.exp(logits - lse[:, None])
    energy = np.sum(resp * sq) / X.shape[0]
    return -np.mean(lse) / beta + 0.1 * energy


def probe_spec():
    rng = np.random.default_rng(69)
    X = np.concatenate([rng.normal(size=(5, 2)) - 1.0, rng.normal(size=(5, 2)) + 1.0])
    C = np.array([[-0.8, -1.1], [0.9, 1.2], [0.0, 0.3]])
    log_pi = np.array([0.1, -0.2, 0.0])
    return dict(func="soft_kmeans_free_energy", wrt=["C", "log_pi", "beta"], args=[C, log_pi, X], kwargs={},
                idioms="soft k-means: logsumexp helper with max shift via m[:, None], expanded squared distances "
                       "(sum(X**2, 1)[:, None] - 2 X @ C.T + ...), [0] of a 1-row helper result, defaulted beta in --wrt")
