import numpy as np


def rnn_loss(Wxh, Whh, Why, bh, xs, targets):
    hidden = Whh.shape[0]
    h = np.zeros(hidden)
    loss = 0.0
    for t in range(len(xs)):
        h = np.tanh(Wxh @ xs[t] + Whh @ h + bh)
        y = Why @ h
        loss += 0.5 * np.sum((y - targets[t]) ** 2)
    return loss


def probe_spec():
    rng = np.random.default_rng(25)
    Wxh = rng.normal(size=(4, 2)) * 0.5
    Whh = rng.normal(size=(4, 4)) * 0.3
    Why = rng.normal(size=(1, 4)) * 0.5
    bh = np.zeros(4)
    xs = rng.normal(size=(6, 2))
    targets = rng.normal(size=(6, 1))
    return dict(func="rnn_loss", wrt=["Wxh", "Whh", "Why", "bh"], args=[Wxh, Whh, Why, bh, xs, targets],
                kwargs={}, idioms="vanilla RNN (karpathy min-char-rnn style), h rebound in loop")
