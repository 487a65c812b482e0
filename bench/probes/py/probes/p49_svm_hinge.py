import numpy as np


def svm_loss(W, X, y, reg=1e-3):
    """cs231n multiclass SVM, vectorized."""
    num_train = X.shape[0]
    scores = X.dot(W)
    correct = scores[np.arange(num_train), y].reshape(-1, 1)
    margins = np.maximum(0, scores - correct + 1)
    margins[np.arange(num_train), y] = 0
    loss = np.sum(margins) / num_train
    loss += reg * np.sum(W * W)
    return loss


def probe_spec():
    rng = np.random.default_rng(27)
    X = rng.normal(size=(5, 4))
    W = rng.normal(size=(4, 3)) * 0.1
    y = np.array([0, 2, 1, 1, 0])
    return dict(func="svm_loss", wrt=["W"], args=[W, X, y], kwargs={},
                idioms="cs231n SVM: fancy index, reshape(-1,1), fancy-index assignment = 0")
