import math


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes_call(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)


def probe_spec():
    return dict(func="black_scholes_call", wrt=["S", "K", "T", "r", "sigma"],
                args=[100.0, 95.0, 0.5, 0.02, 0.25], kwargs={}, idioms="math.erf/log/exp, helper")
