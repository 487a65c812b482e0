import numpy as np


def ufuncs(x: "f64[n]", y: "f64[n]"):
    p = np.arcsinh(x) + np.arccosh(y + 1.0) + np.arctanh(0.5 * x) + np.arccos(0.5 * x)
    q = np.log1p(y) + np.expm1(x) + np.cbrt(y) + np.exp2(x) + np.log2(y) + np.log10(y)
    return np.sum(p * q) + np.sum(np.rint(4.0 * x) * y)
