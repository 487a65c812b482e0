import numpy as np


def kmeans_distortion(centroids, X):
    dists = np.sum((X[:, np.newaxis, :] - centroids[np.newaxis, :, :]) ** 2, axis=2)
    return np.sum(np.min(dists, axis=1)) / X.shape[0]


def probe_spec():
    rng = np.random.default_rng(34)
    X = rng.normal(size=(9, 2))
    C = np.array([[-0.5, 0.2], [0.8, -0.3], [0.1, 1.0]])
    return dict(func="kmeans_distortion", wrt=["centroids", "X"], args=[C, X], kwargs={},
                idioms="3-D broadcast pairwise distances, np.min axis=1")
