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


# -- helpers and loop-invariant reads under aliasing (issue 14, class 3) --------------------
# Each program takes (out, in_, n) and is called with out and in_ the same array (and the same
# shadow); the finite differences perturb that one array.

_HAND_INLINED_NORM = """\
import math


def norm(out, in_, n):
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += in_[j] * in_[j]
        out[i] = in_[i] / math.sqrt(s)
"""

# The helper's copy of in_ (made before the call, outside any loop) must be taken: the loop
# then changes in_ through out.
_HELPER_BEFORE_LOOP = """\
import math


def mag(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] * x[i]
    return math.sqrt(s)


def scale(out, in_, n):
    m = mag(in_, n)
    for i in range(n):
        out[i] = in_[i] / m + out[(i + 1) % n]
    return mag(out, n)
"""

# sin(in_[0]) looks the same in every iteration, but the first store changes in_[0].
_INVARIANT_LOOKING_LOAD = """\
import math


def f(out, in_, n):
    for i in range(n):
        out[i] = math.sin(in_[0]) * in_[i]
"""

_ALIAS_CASES = [
    (_HAND_INLINED_NORM, "norm", False),
    (_HELPER_BEFORE_LOOP, "scale", True),
    (_INVARIANT_LOOKING_LOAD, "f", False),
]


def _aliased_gradient(source, func, returns, target, level, z, dz, n, d_return):
    text = pipeline.gradient_source(source, "alias.py", func, ["in_"], target,
                                    pipeline.Options(level=level, may_alias=True))
    extra = [d_return] if returns else []
    if target == "c":
        import cbuild

        if not cbuild.have_gcc():
            pytest.skip("no gcc")
        params = ["double *"] * 4 + ["long"] + (["double"] if returns else [])
        cbuild.CFunction(cbuild.build(text), "grad_" + func, params)(z, dz, z, dz, n, *extra)
    else:
        if target == "numba":
            pytest.importorskip("numba")
        namespace: dict = {}
        exec(text, namespace)
        namespace["grad_" + func](z, dz, z, dz, n, *extra)


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("case", range(len(_ALIAS_CASES)))
def test_out_and_in_the_same_array(case, level, target):
    source, func, returns = _ALIAS_CASES[case]
    namespace: dict = {}
    exec(source, namespace)
    f = namespace[func]
    n = 5
    rng = np.random.default_rng(case)
    z0 = rng.uniform(0.5, 1.5, n)
    seed = rng.normal(size=n)
    d_return = 0.7

    def J(z):
        z = z.copy()
        value = f(z, z, n)
        return (d_return * value if returns else 0.0) + float(seed @ z)

    z, dz = z0.copy(), seed.copy()
    _aliased_gradient(source, func, returns, target, level, z, dz, n, d_return)
    expect = z0.copy()
    f(expect, expect, n)
    np.testing.assert_allclose(z, expect, rtol=1e-12)
    h = 1e-6
    fd = np.array([(J(z0 + h * e) - J(z0 - h * e)) / (2 * h) for e in np.eye(n)])
    np.testing.assert_allclose(dz, fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("target", ["py", "c"])
@pytest.mark.parametrize("level", [0, 2])
def test_readme_norm_with_aliasing_keeps_a_copy_of_in_per_iteration(level, target):
    """norm(x, x, n): mag re-reads in_ in every iteration, after out (maybe in_) changed. Its
    gradient keeps the copy of in_ that each iteration's mag saw, in an array tape (it was a
    located error before arrays could be taped), and is right when out is in_."""
    from pathlib import Path

    source = (Path(__file__).parent.parent / "examples" / "norm.py").read_text()
    text = pipeline.gradient_source(source, "norm.py", "norm", ["in_"], "py",
                                    pipeline.Options(level=level, may_alias=True))
    # the copy of in_ mag's gradient re-runs from; at -O2 mag is inlined into the loop
    # (opt/inline_loops), which tapes each element its sum read
    assert ("tape_in__before_mag" if level == 0 else "tape_in__elem[i * t0 + i2] = in__elem") in text
    namespace: dict = {}
    exec(source, namespace)
    n = 5
    rng = np.random.default_rng(7)
    z0 = rng.uniform(0.5, 1.5, n)
    seed = rng.normal(size=n)

    def J(z):
        z = z.copy()
        namespace["norm"](z, z, n)
        return float(seed @ z)

    z, dz = z0.copy(), seed.copy()
    _aliased_gradient(source, "norm", False, target, level, z, dz, n, 0.0)
    h = 1e-6
    fd = np.array([(J(z0 + h * e) - J(z0 - h * e)) / (2 * h) for e in np.eye(n)])
    np.testing.assert_allclose(dz, fd, rtol=1e-6, atol=1e-7)
