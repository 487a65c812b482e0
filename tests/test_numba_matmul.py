"""Numba output multiplies two matrices with its own ``matmul``: BLAS's product where SciPy is
installed (Numba reaches BLAS through it), else the product's loops.

A broadcast product summed over the shared axis (``np.sum(np.expand_dims(X, 2) *
np.expand_dims(W.T, 0), axis=1)``) compiles without SciPy too, but makes an m x k x n array:
411 MB and 300 times the primal's time for a 256 x 784 by 784 x 256 product
(bench/numpy_suite.py --numba). Both branches of ``matmul`` are checked here: the one the machine
takes (SciPy is a test dependency) against central differences, the loops by running the same
output with ``NUMBA_BLAS = False`` against the Python output.
"""

from __future__ import annotations

import numpy as np
import pytest

from s2sad import pipeline
from source_gradients import check_command, load

PRODUCTS = """
import numpy as np


def f(W: "f64[h, d]", X: "f64[m, d]", V: "f64[d, h]", x: "f64[d]"):
    H = np.tanh(X @ W.T)
    G = (W @ V) @ H.T
    return np.sum(G * G) + np.sum(H @ (W @ x)) + np.sum(X.T @ H)
"""

BLAS_LINE = 'NUMBA_BLAS = importlib.util.find_spec("scipy") is not None'


def test_a_matrix_product_is_the_outputs_matmul(tmp_path, capsys):
    text = pipeline.gradient_source(PRODUCTS, "prog.py", "f", ["W", "X", "V", "x"], "numba")
    assert BLAS_LINE in text and "import importlib.util" in text, text
    assert "matmul(X, t0)" in text and "np.expand_dims(" not in text, text
    check_command(tmp_path, capsys, PRODUCTS, "f", "W,X,V,x", "W=3x4,X=5x4,V=4x3,x=4", "numba")


@pytest.mark.parametrize("shapes", [(3, 4, 5), (1, 1, 1), (2, 0, 3)])
def test_the_loops_of_matmul_give_blas_s_product(shapes):
    h, d, m = shapes
    text = pipeline.gradient_source(PRODUCTS, "prog.py", "f", ["W", "X", "V", "x"], "numba")
    loops = load(text.replace(BLAS_LINE, "NUMBA_BLAS = False"), "<loops>")
    reference = load(pipeline.gradient_source(PRODUCTS, "prog.py", "f", ["W", "X", "V", "x"], "py"), "<py>")
    rng = np.random.default_rng(h * 100 + d * 10 + m)
    data = {"W": rng.normal(size=(h, d)), "X": rng.normal(size=(m, d)), "V": rng.normal(size=(d, h)),
            "x": rng.normal(size=d)}
    results = []
    for namespace in (loops, reference):
        shadows = {k: np.zeros_like(v) for k, v in data.items()}
        namespace["grad_f"](data["W"], shadows["W"], data["X"], shadows["X"], data["V"], shadows["V"], data["x"],
                            shadows["x"])
        results.append(shadows)
    for k in data:
        np.testing.assert_allclose(results[0][k], results[1][k], rtol=1e-12, atol=1e-12)
