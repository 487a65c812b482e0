import numpy as np


def conv_smooth(img: "f64[m, n]", w: "f64[3, 3]", x: "f64[n]", j: int):
    # a 3x3 "valid" convolution written with shifted slices
    top = w[0, 0] * img[:-2, :-2] + w[0, 1] * img[:-2, 1:-1] + w[0, 2] * img[:-2, 2:]
    mid = w[1, 0] * img[1:-1, :-2] + w[1, 1] * img[1:-1, 1:-1] + w[1, 2] * img[1:-1, 2:]
    low = w[2, 0] * img[2:, :-2] + w[2, 1] * img[2:, 1:-1] + w[2, 2] * img[2:, 2:]
    out = top + mid + low
    # differences along a vector; a column and rows of the image
    dx = x[1:] - x[:-1]
    col = img[:, j]
    return np.sum(np.tanh(out) ** 2) + np.sum(dx * dx) + np.sum(col * img[0]) + np.sum(img[1] * x)
