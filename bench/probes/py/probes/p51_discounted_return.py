import numpy as np


def discounted_returns(rewards, gamma=0.99):
    G = 0.0
    returns = []
    for r in reversed(rewards):
        G = r + gamma * G
        returns.insert(0, G)
    return returns


def reinforce_loss(logits, actions, rewards, gamma):
    returns = np.array(discounted_returns(rewards, gamma))
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    chosen = logp[np.arange(len(actions)), actions]
    return -np.sum(chosen * returns)


def probe_spec():
    rng = np.random.default_rng(29)
    logits = rng.normal(size=(5, 3))
    actions = np.array([0, 1, 2, 1, 0])
    rewards = np.array([1.0, 0.0, 0.5, 1.0, -1.0])
    return dict(func="reinforce_loss", wrt=["logits", "gamma"], args=[logits, actions, rewards, 0.9],
                kwargs={}, idioms="reversed(rewards), list.insert(0, G), helper returning list")
