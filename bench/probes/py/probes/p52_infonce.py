import numpy as np


def info_nce(z1, z2, temperature=0.5):
    z1 = z1 / np.linalg.norm(z1, axis=1, keepdims=True)
    z2 = z2 / np.linalg.norm(z2, axis=1, keepdims=True)
    sim = z1 @ z2.T / temperature
    sim = sim - sim.max(axis=1, keepdims=True)
    log_prob = sim - np.log(np.exp(sim).sum(axis=1, keepdims=True))
    return -np.mean(np.diag(log_prob))


def probe_spec():
    rng = np.random.default_rng(30)
    z1 = rng.normal(size=(4, 3))
    z2 = z1 + 0.3 * rng.normal(size=(4, 3))
    return dict(func="info_nce", wrt=["z1", "z2", "temperature"], args=[z1, z2], kwargs={"temperature": 0.3},
                idioms="parameter rebound to normalized version, norm axis=1 keepdims, np.diag")
