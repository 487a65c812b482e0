import numpy as np


def f(X, mu, P):
    diff = X - mu
    return np.sum(np.einsum("ij,jk,ik->i", diff, P, diff))
