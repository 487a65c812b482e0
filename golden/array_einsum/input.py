import numpy as np


def f(A: "f64[m, n]", B: "f64[n, k]", x: "f64[m]", y: "f64[n]", S: "f64[n, n]", T: "f64[b, m, n]"):
    C = np.einsum("ij,jk->ik", A, B)
    q = np.einsum("i,ij,j->", x, A, y)
    t = np.einsum("ii->", S)
    P = np.einsum("i,j->ij", x, y)
    R = np.einsum("bij,jk->bik", T, B)
    u = np.einsum("ij,jk,k->i", A, B, np.sum(B, axis=0))
    w = np.einsum("ij,j", A, y)
    return np.sum(C * C) + q * t + np.sum(np.einsum("ij->ji", A) * P.T) + np.sum(R**2) + np.sum(u) + np.sum(np.sin(w))
