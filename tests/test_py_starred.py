"""Unpacking with a starred name nothing reads (``first, *_ = x``) is the unpacking it leaves
(parse/py_starred.py), in every target; a starred name the function reads stays a located error
with a true hint."""

from __future__ import annotations

import pytest

from source_gradients import check_command, the_refusal

STARRED = """
import numpy as np


def helper(v: "f64[n]", n: int):
    *_, last = v
    return last * last


def f(x: "f64[n]", n: int):
    first, *_ = x
    a, b, *rest = x
    p, *_, q = np.sin(first), a * b, np.cos(b), x[n - 1] ** 2
    row, *_ = x[1:]
    return first * p + q * row + helper(x, n) + b
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_a_starred_name_nothing_reads_drops_its_items(tmp_path, capsys, target):
    check_command(tmp_path, capsys, STARRED, "f", "x", "n=5", target)


@pytest.mark.parametrize("line, caret", [
    ("    a, *rest = x[0], x[1], x[2]\n    return a * rest[0]\n", "*rest"),  # the rest is read
    ("    a, *_ = g(x)\n    return a\n", "*_"),  # a call: evaluated whole, its result's items unknown
])
def test_a_starred_name_read_or_unpacking_a_call_stays_refused(line, caret):
    source = "import numpy as np\n\n\ndef g(v):\n    return v[0], v[1]\n\n\ndef f(x: \"f64[n]\", n: int):\n" + line
    d = the_refusal(source, ["x"])
    assert d.message == "this starred assignment target is not supported", d.message
    assert "first, *_ = x" in d.hint and "rest = x[1:]" in d.hint
    assert source.splitlines()[d.loc.line - 1][d.loc.col - 1:].startswith(caret)
