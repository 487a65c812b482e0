"""Tapes of loops whose bounds move with an outer loop are allocated once, and are big enough.

For each inner-loop shape the generated Python pushes into an array of the
bounded capacity with no growth check: a bound that is too small raises an
IndexError when the gradient runs, for any of the sizes tried (including no
iteration at all). Values are checked against central differences.
"""

from __future__ import annotations

import numpy as np
import pytest

from s2sad import pipeline

SHAPES = [
    "range(i + 1, n)",
    "range(i)",
    "range(n - 1, i, -1)",
    "range(i, n, 2)",
    "range(2, i + 3)",
    "range(i + 2, 0, -3)",
]

TEMPLATE = """
def f(x, n):
    total = 0.0
    for i in range(n):
        row = 1.0
        for j in {shape}:
            row = row * x[j] + 0.5
        total += row
    return total
"""


@pytest.mark.parametrize("shape", SHAPES)
def test_tape_of_a_moving_inner_loop_is_allocated_once_and_suffices(shape):
    source = TEMPLATE.format(shape=shape)
    code = pipeline.gradient_source(source, "f.py", "f", ["x"], "py", pipeline.Options())
    assert "np.concatenate" not in code  # never grows
    scope: dict = {}
    exec(compile(code, "grad_f.py", "exec"), scope)
    exec(compile(source, "f.py", "exec"), scope)
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 5, 8):
        x = rng.uniform(0.5, 1.0, n + 4)
        d_x = np.zeros_like(x)
        scope["grad_f"](x, d_x, n)
        h = 1e-6
        fd = np.array([(scope["f"](x + h * e, n) - scope["f"](x - h * e, n)) / (2 * h) for e in np.eye(len(x))])
        np.testing.assert_allclose(d_x, fd, rtol=1e-6, atol=1e-7)
