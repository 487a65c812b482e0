"""Python output prints an array made and filled from another of its shape as ``x.copy()``
(s2sad.emit_py.copies); any other fill stays the loop it is."""

from __future__ import annotations

from source_gradients import HEADER, arr, check_source, count
from s2sad.emit.expr import Attribute, Call, Lit, Name, Subscript
from s2sad.emit.stmt import Assign, For
from s2sad.emit_py.copies import array_copies


def _forward(text: str) -> str:
    return text.split("# forward sweep")[1].split("# reverse sweep")[0]


def test_copies_of_a_vector_and_a_matrix_are_printed_as_copies():
    source = HEADER + '''
def f(x: "f64[n]", H: "f64[m, m]"):
    y = x.copy()
    y[0] = y[0] * y[1]
    A = np.copy(H)
    A[0, 1] += y[0]
    return np.sum(A * A) + np.sum(y * x)
'''
    for target in ("py", "numba"):
        forward = _forward(check_source(source, ["x", "H"], [arr("x", 4), arr("H", 3, 3)], target))
        assert "y = x.copy()" in forward and "A = H.copy()" in forward and "for " not in forward, forward


def test_a_fill_of_part_of_an_array_or_a_conversion_stays_a_loop():
    source = HEADER + '''
def f(x: "f64[n]", k: "i64[n]", n: int):
    y = np.empty(n)
    for i in range(n - 1):
        y[i] = x[i]
    y[n - 1] = 0.0
    z = k.astype(float)
    return np.sum(y * x) + np.sum(z * x)
'''
    forward = _forward(check_source(source, ["x"], [arr("x", 4), arr("k", 4), count("n", 4)]))
    assert ".copy()" not in forward


def _fill(extent) -> list:
    k = Name("k")
    return [Assign([Name("y")], Call(Attribute(Name("np"), "empty"), (extent,))),
            For("k", [extent], [Assign([Subscript(Name("y"), (k,))], Subscript(Name("x"), (k,)))])]


def test_only_an_extent_of_the_source_makes_a_copy():
    shape0 = Subscript(Attribute(Name("x"), "shape"), (Lit("0"),))
    assert array_copies(_fill(shape0)) == [Assign([Name("y")], Call(Attribute(Name("x"), "copy")))]
    named = [Assign([Name("t0")], shape0), *_fill(Name("t0"))]
    assert array_copies(named)[1] == Assign([Name("y")], Call(Attribute(Name("x"), "copy")))
    # t0 assigned again elsewhere: not known to be x's extent
    twice = [*named, Assign([Name("t0")], Lit("3"))]
    assert array_copies(twice) == twice
    other = Subscript(Attribute(Name("w"), "shape"), (Lit("0"),))  # w's extent: x may be longer
    assert array_copies(_fill(other)) == _fill(other)
