"""`--may-alias`: gradients stay right when array arguments are the same memory.

By default the contract lets s2sad assume array arguments do not overlap (as
C's ``restrict``). With ``--may-alias`` nothing may rely on that: neither the
optimizer (hoisting a load past a store to another array) nor the reverse sweep
(re-reading an array "after its last write"). Here ``x`` and ``y`` are passed
as one array, and so are their shadows.
"""

from __future__ import annotations

import numpy as np
import pytest

from s2sad import pipeline

SOURCE = """\
def f(x, y, a: float, n: int) -> float:
    s = 0.0
    for i in range(n):
        y[i] = a * x[i] + 1.0
    for i in range(n):
        s += x[i] * x[i] + a * y[(i + 1) % n]
    for i in range(n):
        y[i] = y[i] * x[(i + 2) % n]
    return s + x[0] * y[1]
"""


def _primal():
    namespace: dict = {}
    exec(SOURCE, namespace)
    return namespace["f"]


def _gradient(options):
    namespace: dict = {}
    exec(pipeline.gradient_source(SOURCE, "alias.py", "f", ["x", "y", "a"], "py", options), namespace)
    return namespace["grad_f"]


@pytest.mark.parametrize("level", [0, 2])
def test_gradient_with_aliased_arguments_matches_finite_differences(level):
    f = _primal()
    grad = _gradient(pipeline.Options(level=level, may_alias=True))
    rng = np.random.default_rng(3)
    n = 6
    z0 = rng.uniform(0.5, 1.5, n)
    a0 = 0.7
    seed = rng.normal(size=n)
    d_return = 1.3

    def J(z, a):
        z = z.copy()
        return d_return * f(z, z, a, n) + float(seed @ z)  # z at exit, seeded

    z = z0.copy()
    dz = seed.copy()
    d_a = grad(z, dz, z, dz, a0, n, d_return=d_return)
    zp = z0.copy()
    expect_exit = zp
    f(expect_exit, expect_exit, a0, n)
    np.testing.assert_allclose(z, expect_exit, rtol=1e-12)
    h = 1e-6
    fd = np.array([(J(z0 + h * e, a0) - J(z0 - h * e, a0)) / (2 * h) for e in np.eye(n)])
    np.testing.assert_allclose(dz, fd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d_a, (J(z0, a0 + h) - J(z0, a0 - h)) / (2 * h), rtol=1e-5, atol=1e-6)
