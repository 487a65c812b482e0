"""Negative indices in Python input, counted from the end as Python counts them, in every output.

``x[i - 1]`` at ``i = 0`` reads the last entry in NumPy and Numba; C output printed it as
written and read before the array (a periodic stencil's gradient was memory corruption). The
front end now counts an index that may be negative from the end (``ssa.build.from_end``): C
output tests it (``i - 1 < 0 ? i - 1 + n : i - 1``), the Python targets leave it to NumPy and
Numba (``opt.native_indices``) and print the index as the source wrote it.

Each case is checked at inputs where indices are negative: the Python and Numba gradients
against central differences, and the C gradient, compiled and called through ctypes, against
the Python gradient.
"""

from __future__ import annotations

import ast
import ctypes
import re
import textwrap

import numpy as np
import pytest
from cbuild import build, compile_c, have_gcc
from fd import check_source_function

from s2sad import pipeline

RNG = np.random.default_rng(7)

# name -> (source, wrt, the arguments in parameter order)
CASES = {
    "periodic": ("""
        def f(x: "f64[n]", n: int):
            s = 0.0
            for i in range(n):
                s += x[i] * x[i - 1] ** 2
            return s
    """, ["x"], [RNG.normal(size=5), 5]),
    "periodic_2d": ("""
        def f(A: "f64[m, n]", m: int, n: int):
            s = 0.0
            for i in range(m):
                for j in range(n):
                    s += A[i, j] * math.sin(A[i - 1, j - 2])
            return s
    """, ["A"], [RNG.normal(size=(3, 4)), 3, 4]),
    "negative_parameter": ("""
        def f(x: "f64[n]", k: int):
            return x[k] ** 3 + x[k + 1] * x[0]
    """, ["x"], [RNG.normal(size=5), -3]),
    "gathered": ("""
        def f(w: "f64[n]", idx: "i64[m]"):
            return np.sum(w[idx] ** 2 * w[idx - 1])
    """, ["w"], [RNG.normal(size=5), np.array([-1, 2, -4, 0, -1, 3])]),
    "assigned_at": ("""
        def f(x: "f64[m]", idx: "i64[m]", n: int):
            y = np.zeros(n)
            y[idx] = x
            return np.sum(np.sin(y) * y)
    """, ["x"], [RNG.normal(size=4), np.array([-1, 0, -3, 2]), 5]),
    "stored_in_loop": ("""
        def f(x: "f64[n]", n: int):
            y = np.zeros(n)
            for i in range(n):
                y[i - 1] = x[i] * 2.0 + x[i - 2]
            return np.sum(y * y * x)
    """, ["x"], [RNG.normal(size=5), 5]),
}


def _source(name: str) -> str:
    return "import math\n\nimport numpy as np\n\n\n" + textwrap.dedent(CASES[name][0]).lstrip()


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_python_targets_count_from_the_end_as_numpy(name, target):
    _, wrt, args = CASES[name]
    check_source_function(_source(name), "f", args, wrt, target)


@pytest.mark.parametrize("name", sorted(CASES))
def test_python_output_indexes_as_the_source_wrote(name):
    text = pipeline.gradient_source(_source(name), "prog.py", "f", CASES[name][1], "py")
    assert "< 0 else" not in text, text  # no test of the sign: NumPy counts from the end itself


def _c_call(text: str, values: dict[str, object]) -> dict[str, np.ndarray]:
    """Call ``grad_f`` of the C ``text`` with ``values`` by parameter name (a shadow ``d_<a>`` a
    zero array of ``a``'s shape, the seed 1); the shadows after the call."""
    declared = re.search(r"void grad_f\(([^)]*)\)", text)
    assert declared is not None, text
    shadows: dict[str, np.ndarray] = {}
    types, call = [], []
    for param in " ".join(declared.group(1).split()).split(", "):  # (a long one wraps)
        ctype, name = param.rsplit(" ", 1)
        pointer = name.startswith("*")
        name = name.lstrip("*")
        if name.startswith("d_") and name != "d_return":
            value = shadows[name[2:]] = np.zeros(np.shape(values[name[2:]]))
        elif name == "d_return":
            value = 1.0
        elif pointer:
            value = np.ascontiguousarray(values[name], dtype=np.float64 if ctype == "double" else np.int64)
        else:
            value = values[name]
        if pointer:
            types.append(np.ctypeslib.ndpointer(value.dtype))
        else:
            types.append(ctypes.c_double if ctype == "double" else ctypes.c_long)
        call.append(value)
    fn = build(text).grad_f
    fn.argtypes, fn.restype = types, None
    fn(*call)
    return shadows


def _py_call(source: str, wrt: list[str], names: list[str], values: dict) -> dict[str, np.ndarray]:
    """Call the Python ``grad_f`` of ``source`` with copies of ``values`` in parameter order
    (``names``), a zero shadow after each array of ``wrt``, the seed 1; the shadows after it."""
    namespace: dict = {}
    exec(compile(pipeline.gradient_source(source, "prog.py", "f", wrt, "py"), "<grad>", "exec"), namespace)
    shadows = {w: np.zeros(np.shape(values[w])) for w in wrt}
    call = []
    for p in names:
        call.append(np.array(values[p], copy=True) if isinstance(values[p], np.ndarray) else values[p])
        if p in shadows:
            call.append(shadows[p])
    namespace["grad_f"](*call, 1.0)
    return shadows


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_c_output_counts_from_the_end_as_python(name):
    source, (_, wrt, args) = _source(name), CASES[name]
    names = [a.arg for a in ast.parse(source).body[-1].args.args]  # type: ignore[attr-defined]
    values = dict(zip(names, args))
    for annotated, shape in re.findall(r'(\w+): "\w+\[([^]]*)\]"', source):  # the extents C takes
        for extent, size in zip(shape.split(", "), np.shape(values[annotated])):
            values.setdefault(extent, size)
    c_text = pipeline.gradient_source(source, "prog.py", "f", wrt, "c")
    assert "< 0 ?" in c_text, c_text  # the sign is tested where the index may be negative
    got = _c_call(c_text, values)
    want = _py_call(source, wrt, names, values)
    for w in wrt:
        np.testing.assert_allclose(got[w], want[w], rtol=1e-12, atol=1e-14, err_msg=w)
    assert np.any(want[wrt[0]] != 0.0)


@pytest.mark.parametrize("index", ["x[i - 1]", "x[n - 1 - i]", "x[(i + 1) % n]", "x[(i + n - 1) % n]"])
def test_an_index_that_cannot_be_negative_is_not_tested(index):
    """In ``range(1, n)``, ``i - 1 >= 0``; in ``range(n)``, ``n - 1 - i >= 0`` (the loop's range)
    and Python's ``%`` of ``n`` is at least 0 (``n > i >= 0`` in the loop's body)."""
    start = "1, n" if index == "x[i - 1]" else "n"
    source = f"def f(x: \"f64[n]\", n: int):\n    s = 0.0\n    for i in range({start}):\n" \
             f"        s += x[i] * {index}\n    return s\n"
    assert "< 0 ?" not in pipeline.gradient_source(source, "prog.py", "f", ["x"], "c")


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_c_output_stops_at_a_negative_index_into_an_array_of_unknown_length():
    """An unannotated array (a helper's parameter, or the entry's): C has no length to count from
    the end with (a size parameter would change the signature with the -O level, a helper
    inlined or not). The index is checked: a negative one stops the program with a message, and
    the signature stays as the source's (``opt.negative_indices``)."""
    source = "import math\n\n\ndef g(x, k):\n    return math.sin(x[k])\n\n\ndef f(x, k, n):\n" \
             "    s = 0.0\n    for i in range(n):\n        s += g(x, k - i) * x[i]\n    return s\n"
    for level in (0, 2):
        text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "c", pipeline.Options(level=level))
        assert "void grad_f(double *x, double *d_x, long k, long n, double d_return)" in text
        assert "a negative index into 'x'\\n\");" in text and "abort();" in text and "< 0 ?" not in text
        values = {"x": np.linspace(0.1, 0.9, 6), "k": 5, "n": 4}
        got, want = _c_call(text, values), _py_call(source, ["x"], ["x", "k", "n"], values)
        np.testing.assert_allclose(got["x"], want["x"], rtol=1e-12, atol=1e-14)


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_the_stops_message_names_no_parameter():
    """The words of a stop's message (``a negative index into 'y'``) are no use of a parameter
    ``a``, which C output marks unused (fuzz seed 38014: gcc -Wextra warned of an unused ``a``);
    two indices tested alike share one stop."""
    source = "def f(x, y, a: float, k):\n    return x[k] * y[k] + x[0]\n"
    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "c")
    assert "(void)a;" in text and text.count("abort();") == 1, text
    compile_c(text)  # (no warning)
