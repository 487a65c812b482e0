import numpy as np


def penalized_loss(theta, X, y, config):
    lam = config["lam"]
    scale = config.get("scale", 1.0)
    pred = X @ theta * scale
    loss = np.mean((pred - y) ** 2)
    if config["penalty"] == "l2":
        loss += lam * np.sum(theta ** 2)
    else:
        loss += lam * np.sum(np.abs(theta))
    return loss


def probe_spec():
    rng = np.random.default_rng(18)
    X = rng.normal(size=(7, 3))
    y = rng.normal(size=7)
    theta = rng.normal(size=3)
    config = {"lam": 0.1, "scale": 2.0, "penalty": "l2"}
    return dict(func="penalized_loss", wrt=["theta"], args=[theta, X, y, config], kwargs={},
                idioms="dict of hyperparameters passed in, config.get, string compare")
