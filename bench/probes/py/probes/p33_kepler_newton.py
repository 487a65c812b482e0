import math


def solve_kepler(M, e, tol=1e-12, max_iter=50):
    E = M if e < 0.8 else math.pi
    it = 0
    while True:
        dE = (E - e * math.sin(E) - M) / (1 - e * math.cos(E))
        E -= dE
        it += 1
        if abs(dE) < tol or it >= max_iter:
            break
    return E


def true_anomaly_radius(M, e, a=1.0):
    E = solve_kepler(M, e)
    r = a * (1 - e * math.cos(E))
    return r


def probe_spec():
    return dict(func="true_anomaly_radius", wrt=["M", "e", "a"], args=[1.2, 0.3], kwargs={"a": 2.0},
                idioms="while True Newton with tol and break, conditional expr, math")
