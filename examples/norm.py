"""Normalize a vector: the running example of the s2sad README."""

import math


def mag(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] * x[i]
    return math.sqrt(s)


def norm(out, in_, n):
    for i in range(n):
        out[i] = in_[i] / mag(in_, n)
