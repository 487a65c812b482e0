"""--parallel: the gradient's loops whose iterations are independent run in parallel
(opt/forward_order.py): ``numba.prange`` in Numba output, ``#pragma omp parallel for`` in C,
checked against central differences (C compiled with -fopenmp and run on several threads)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from cbuild import build, have_gcc
from fd import central_difference, check_source_function
from s2sad import pipeline

ENERGY = """import math


def energy(x, y, n: int):
    s = 0.0
    for i in range(n):
        s += math.exp(math.sin(x[i]) * y[i]) + math.log1p(x[i] * x[i])
    return s
"""

# The reversed loop carries d_a, a sum: it stays serial, and so does the time loop.
SCALED = """def scaled(x, a: float, n: int):
    s = 0.0
    for i in range(n):
        s += a * x[i] * x[i]
    return s
"""


def _gradient(source: str, func: str, wrt: list[str], target: str, parallel: bool = True) -> str:
    return pipeline.gradient_source(source, "prog.py", func, wrt, target, pipeline.Options(parallel=parallel))


def test_numba_output_runs_the_independent_loop_with_prange():
    text = _gradient(ENERGY, "energy", ["x", "y"], "numba")
    assert "for i in numba.prange(n):" in text and "parallel=" in text
    assert "--parallel" in text.split("\n")[1]  # the regenerate line says so
    rng = np.random.default_rng(1)
    check_source_function(ENERGY, "energy", [rng.uniform(-1, 1, 7), rng.uniform(-1, 1, 7), 7], ["x", "y"],
                          "numba")


def test_without_the_flag_the_loop_is_serial():
    assert "prange" not in _gradient(ENERGY, "energy", ["x", "y"], "numba", parallel=False)
    assert "#pragma omp" not in _gradient(ENERGY, "energy", ["x", "y"], "c", parallel=False)


def test_a_loop_that_carries_a_sum_stays_serial():
    text = _gradient(SCALED, "scaled", ["x", "a"], "c")
    assert "#pragma omp" not in text


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_c_output_runs_the_independent_loop_with_openmp_on_two_threads(monkeypatch):
    text = _gradient(ENERGY, "energy", ["x", "y"], "c")
    assert "    #pragma omp parallel for\n    for (long i = 0; i < n; i++) {" in text
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    grad = build(text, ("-fopenmp",)).grad_energy
    ptr = ctypes.POINTER(ctypes.c_double)
    grad.argtypes = [ptr, ptr, ptr, ptr, ctypes.c_long, ctypes.c_double]
    namespace: dict = {}
    exec(ENERGY, namespace)
    rng = np.random.default_rng(2)
    n = 1001
    x, y = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    d_x, d_y = np.zeros(n), np.zeros(n)
    grad(x.ctypes.data_as(ptr), d_x.ctypes.data_as(ptr), y.ctypes.data_as(ptr), d_y.ctypes.data_as(ptr), n, 1.0)
    probe = slice(0, n, 97)  # central differences of a few entries
    f = namespace["energy"]
    fd_x = central_difference(lambda v: f(v, y, n), [x], 0)
    np.testing.assert_allclose(d_x[probe], fd_x[probe], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(d_y, np.exp(np.sin(x) * y) * np.sin(x), rtol=1e-12)
