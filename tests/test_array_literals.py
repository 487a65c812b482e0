"""Python output writes an array made and then filled element by element as its literal
(``w = np.array([1.0, 2.0, 3.0])``, where it printed ``w = np.empty(3)`` and three stores):
module tables, local literals, matrices; the dtype written out where NumPy would not infer
float64. Checked against central differences, and the cases that must stay stores."""

from __future__ import annotations

import pytest
from source_gradients import HEADER, arr, check_source, num

from s2sad.emit.expr import Attribute, Call, Lit, Name, Subscript, Tuple, call
from s2sad.emit.stmt import Assign
from s2sad.emit_py.literals import array_literals

TABLES = HEADER + '''A = np.array([[1.0, 2.0], [3.0, -4.0]])
TAUS = np.array([0.1, 0.5, 2.0])


def f(x: "f64[2]", s: float):
    b = np.array([s, 2.0 * s])
    return np.sum((A @ x) * b) + np.sum(np.exp(-s * TAUS))
'''


@pytest.mark.parametrize("target", ["py", "numba"])
def test_literals_are_written_as_literals(target):
    text = check_source(TABLES, ["x", "s"], [arr("x", 2), num("s")], target=target)
    assert "A = np.array([[1.0, 2.0], [3.0, -4.0]])" in text
    assert "TAUS = np.array([0.1, 0.5, 2.0])" in text
    # values that are not float literals: NumPy would make an int array of ints
    assert "b = np.array([s, 2.0 * s], dtype=np.float64)" in text
    assert "np.empty" not in text


def _empty(name: str, *dims: int) -> Assign:
    shape = Lit(str(dims[0])) if len(dims) == 1 else Tuple(tuple(Lit(str(d)) for d in dims))
    return Assign([Name(name)], call("np.empty", shape))


def _store(name: str, index: tuple[int, ...], value) -> Assign:
    return Assign([Subscript(Name(name), tuple(Lit(str(i)) for i in index))], value)


def test_a_full_fill_in_order_is_one_literal():
    out = array_literals([_empty("w", 2, 2), _store("w", (0, 0), Lit("1.0")), _store("w", (0, 1), Lit("2.0")),
                          _store("w", (1, 0), Lit("3.0")), _store("w", (1, 1), Name("y"))])
    assert len(out) == 1 and isinstance(out[0].value, Call)
    assert out[0].value.kwargs == (("dtype", Attribute(Name("np"), "float64")),)


@pytest.mark.parametrize("stores", [
    [_store("w", (1,), Lit("2.0")), _store("w", (0,), Lit("1.0"))],  # out of order
    [_store("w", (0,), Lit("1.0"))],  # an element left as np.empty made it
    [_store("w", (0,), Lit("1.0")), _store("w", (1,), Subscript(Name("w"), (Lit("0"),)))],  # reads itself
    [_store("w", (0,), Lit("1.0")), _store("v", (1,), Lit("2.0"))],  # another array
])
def test_other_fills_stay_stores(stores):
    stmts = [_empty("w", 2), *stores]
    assert array_literals(stmts) == stmts
