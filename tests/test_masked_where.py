"""A branch of np.where undefined where it is thrown away (opt/masked_where.py): NumPy computes
both branches everywhere, and the derivative of the one thrown away (sqrt of a negative number,
log of 0, arccos past 1) met its zero adjoint as NaN in the gradient (probe round 9: NaN at
every x < 0, where the derivative is 0). What such a branch reads is masked by the same test;
each program is checked against central differences by ``s2sad check`` for every output
language, at inputs on both sides of the test."""

from __future__ import annotations

import pytest

from source_gradients import HEADER, check_command
from s2sad import pipeline

PROGRAMS = HEADER + '''
def guarded_sqrt(x: "f64[n]"):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def guarded_arccos(x: "f64[n]", w: "f64[n]"):
    return np.sum(np.where(np.abs(x) < 0.5, np.arccos(2.0 * x) * w, x * w))


def guarded_log_else(x: "f64[n]"):
    return np.sum(np.where(x <= 0.0, x ** 2, np.log(x) / x))


def guarded_numbers(a: float, b: float):
    return np.where(a > 0.0, np.log(a) * b, b) + np.where(b < 0.0, a, np.sqrt(b))
'''

CASES = [("guarded_sqrt", "x", "x=7"), ("guarded_arccos", "x,w", "x=7,w=7"), ("guarded_log_else", "x", "x=7"),
         ("guarded_numbers", "a,b", "")]


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("func, wrt, sizes", CASES, ids=[c[0] for c in CASES])
def test_a_guarded_branch_gives_no_nan(func, wrt, sizes, target, tmp_path, capsys):
    for seed in ("0", "1"):
        check_command(tmp_path, capsys, PROGRAMS, func, wrt, sizes, target, extra=("--seed", seed))


def test_only_branches_that_need_it_are_masked():
    text = pipeline.gradient_source(PROGRAMS, "prog.py", "guarded_sqrt", ["x"], "py")
    assert "x_masked = np.where(t0, x, 1.0)" in text, text
    plain = HEADER + "\ndef f(x: \"f64[n]\"):\n    return np.sum(np.where(x > 0, x ** 2 + np.exp(x), -x / 2.0))\n"
    assert "masked" not in pipeline.gradient_source(plain, "prog.py", "f", ["x"], "py")
