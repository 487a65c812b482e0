def weighted_error(pred, target, w):
    err = 0.0
    for p, y, wk in zip(pred, target, w):
        err += wk * (p - y) ** 2
    return err
