import logging
import math

log = logging.getLogger(__name__)


def logged_decay(x, steps):
    assert x > 0, "x must be positive"
    y = math.log(x)
    log.info("start from %s", y)
    for k in range(steps):
        y = 0.5 * y + math.sin(x)
        print("step", k, "y =", y)
    logging.debug("done")
    return y * y
