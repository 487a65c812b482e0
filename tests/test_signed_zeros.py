"""A zero's sign, kept as the primal keeps it (fuzz seed 10601523).

IEEE's ``0.0 - x`` is +0.0 where ``x`` is +0.0, but ``-x`` is -0.0; ``x + 0.0`` is +0.0
where ``x`` is -0.0. atan2, copysign and division see the difference, and gcc (without
-ffast-math) keeps it, so s2sad's folding may not rewrite ``0.0 - x`` as ``-x`` nor ``x + 0.0``
as ``x`` for floats (``ssa.build.is_zero_of_sign``). Here the branch the primal takes at x = 0
depends on it: the gradient there must be the derivative of the branch taken, 2x = 0, not 3.
"""

from __future__ import annotations

import ctypes

import pytest
from cbuild import build, have_gcc

from s2sad import pipeline

C_SOURCE = """#include <math.h>

double f(double x, double z)
{
    double h = 0.0;
    h -= x;
    double g = h + 0.0;
    if (atan2(g, z) > 0.0)
        return x * x;
    return 3.0 * x;
}
"""

PY_SOURCE = """import math


def f(x, z):
    h = 0.0
    h -= x
    g = -0.0 + h
    g = g + 0.0
    if math.atan2(g, z) > 0.0:
        return x * x
    return 3.0 * x
"""


@pytest.mark.parametrize("level", [0, 1, 2])
def test_python_output_keeps_the_zero_sign_of_python_input(level):
    text = pipeline.gradient_source(PY_SOURCE, "f.py", "f", ["x"], "py", pipeline.Options(level=level))
    namespace: dict = {}
    exec(compile(text, "<grad_f>", "exec"), namespace)
    assert namespace["grad_f"](0.0, -1.0) == 0.0  # atan2(+0.0, -1.0) is pi: the branch x * x


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
@pytest.mark.parametrize("level", [0, 1, 2])
@pytest.mark.parametrize("target", ["c", "py"])
def test_output_keeps_the_zero_sign_of_c_input(target, level):
    text = pipeline.gradient_source(C_SOURCE, "f.c", "f", ["x"], target, pipeline.Options(level=level))
    if target == "py":
        namespace: dict = {}
        exec(compile(text, "<grad_f>", "exec"), namespace)
        d_x = namespace["grad_f"](0.0, -1.0)
    else:
        fn = build(text).grad_f
        fn.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_double), ctypes.c_double, ctypes.c_double]
        cell = ctypes.c_double(0.0)
        fn(0.0, ctypes.byref(cell), -1.0, 1.0)
        d_x = cell.value
    assert d_x == 0.0
