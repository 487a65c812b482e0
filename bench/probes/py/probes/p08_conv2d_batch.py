import numpy as np


def conv2d_valid(img, kernel):
    H, W = img.shape
    kh, kw = kernel.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = np.sum(img[i:i + kh, j:j + kw] * kernel)
    return out


def conv2d_energy(img, kernel):
    feat = conv2d_valid(img, kernel)
    return np.sum(np.log(1.0 + feat ** 2))


def probe_spec():
    rng = np.random.default_rng(7)
    img = rng.normal(size=(6, 5))
    kernel = rng.normal(size=(3, 3)) * 0.3
    return dict(func="conv2d_energy", wrt=["img", "kernel"], args=[img, kernel], kwargs={},
                idioms="2-D conv with patch slices img[i:i+kh, j:j+kw], shape unpack")
