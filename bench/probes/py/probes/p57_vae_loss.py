import numpy as np


def vae_loss(x, W_enc, W_mu, W_logvar, W_dec, eps):
    h = np.tanh(x @ W_enc)
    mu = h @ W_mu
    logvar = h @ W_logvar
    z = mu + np.exp(0.5 * logvar) * eps
    x_logits = z @ W_dec
    recon = np.sum(np.logaddexp(0, x_logits) - x * x_logits, axis=1)
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar), axis=1)
    return np.mean(recon + kl)


def probe_spec():
    rng = np.random.default_rng(35)
    x = (rng.random(size=(4, 6)) > 0.5).astype(float)
    W_enc = rng.normal(size=(6, 5)) * 0.3
    W_mu = rng.normal(size=(5, 2)) * 0.3
    W_logvar = rng.normal(size=(5, 2)) * 0.3
    W_dec = rng.normal(size=(2, 6)) * 0.3
    eps = rng.normal(size=(4, 2))
    return dict(func="vae_loss", wrt=["W_enc", "W_mu", "W_logvar", "W_dec"],
                args=[x, W_enc, W_mu, W_logvar, W_dec, eps], kwargs={},
                idioms="VAE: reparameterization, np.logaddexp(0, .), batch x lower-case")
