"""A function of the file called with one array as two arguments, one of which it writes.

The contract lets s2sad take the entry's array arguments not to overlap (as C's ``restrict``),
and the optimizer and reverse mode took every function's the same way. A helper called in place
(``relax(n, w, w)``) or on a shifted view (``axpy(n, a, w + 1, w)``) then had a wrong gradient:
the reversed stencil read adjoints it had just added, and the reversed ``axpy`` ran forwards,
each step picking up the previous step's addition (C probe round 6). Such a module is now
translated as with ``--may-alias``, and the output's header says why. Each gradient is checked
by ``s2sad check`` (central differences of the primal), in every output language.

In Python, a part of an array (``w[1:]``) given beside the array a callee writes is refused
(``parse/py_view_arguments``): NumPy passes the part as a view, which shows the callee's writes,
where the IR's part is a copy made at the call (``chain(w[1:], w, n)`` was a wrong gradient).
"""

from __future__ import annotations

import shutil

import pytest

from s2sad import pipeline
from s2sad.cli import main

C_SHIFTED = """\
static void axpy(int n, double a, const double *xv, double *yv)
{
    for (int i = 0; i < n; i++) yv[i] += a * xv[i];
}

double f(const double *x, int n)
{
    double w[16];
    for (int i = 0; i < n; i++) w[i] = x[i] * x[i];
    axpy(n - 1, 2.0, w + 1, w);
    double s = 0.0;
    for (int i = 0; i < n; i++) s += w[i] * (i + 1);
    return s;
}
"""

C_IN_PLACE = """\
static void relax(int n, const double *in, double *out)
{
    for (int i = 1; i < n - 1; i++) out[i] = 0.5 * in[i] + 0.25 * (in[i - 1] + in[i + 1]);
}

double f(const double *x, int n)
{
    double w[16];
    for (int i = 0; i < n; i++) w[i] = x[i] * x[i];
    relax(n, w, w);
    double s = 0.0;
    for (int i = 0; i < n; i++) s += w[i] * (i + 1);
    return s;
}
"""

PY_BOTH = """\
import numpy as np


def relax(n, inp, out):
    for i in range(1, n - 1):
        out[i] = 0.5 * inp[i] + 0.25 * (inp[i - 1] + inp[i + 1])


def axpy(n, a, xv, yv):
    for i in range(n):
        yv[i] += a * xv[i]


def f(x: "f64[n]", n: int):
    w = np.zeros(n)
    for i in range(n):
        w[i] = x[i] * x[i]
    relax(n, w, w)
    axpy(n - 1, 2.0, w[1:].copy(), w)
    s = 0.0
    for i in range(n):
        s += w[i] * (i + 1)
    return s
"""

# The array the call overlaps is written by it and read by its gradient as the call saw it:
# the copy taken for the gradient is one, each argument the view of it the call passed. Two
# copies re-ran the callee out of place (probe round 7: d_w 2.5 where 1), in or out of a loop.
SEEN_IN_PLACE = {
    "in_place.c": """\
static void shift_scale(const double *in, double *out, int n, double w)
{
    for (int i = 1; i < n; i++) out[i] = w * in[i - 1] * in[i - 1];
}

double f(double *x, int n, double w)
{
    shift_scale(x, x, n, w);
    return x[n - 1];
}
""",
    "shifted_view.c": """\
static void scaled_copy(const double *src, double *dst, int n, double w)
{
    for (int i = 0; i < n; i++) dst[i] = w * src[i] * src[i];
}

double f(double *x, int n, double w)
{
    scaled_copy(x, x + 1, n - 1, w);
    return x[n - 1];
}
""",
    "in_a_loop.c": """\
static void shift_scale(const double *in, double *out, int n, double w)
{
    for (int i = 1; i < n; i++) out[i] = w * in[i - 1] * in[i - 1];
}

double f(double *x, int n, double w)
{
    double s = 0.0;
    for (int t = 0; t < 2; t++) {
        shift_scale(x, x, n, w);
        s += x[n - 1];
    }
    return s;
}
""",
    "in_place.py": """\
def shift_scale(inp, out, n: int, w: float):
    for i in range(1, n):
        out[i] = w * inp[i - 1] * inp[i - 1]


def f(x: "f64[n]", n: int, w: float):
    shift_scale(x, x, n, w)
    return x[n - 1] + x[1]
""",
    "in_a_loop.py": """\
def shift_scale(inp, out, n: int, w: float):
    for i in range(1, n):
        out[i] = w * inp[i - 1] * inp[i - 1]


def f(x: "f64[n]", n: int, w: float):
    s = 0.0
    for t in range(2):
        shift_scale(x, x, n, w)
        s += x[n - 1]
    return s
""",
}

CASES = [("shifted.c", C_SHIFTED, "c"), ("in_place.c", C_IN_PLACE, "c"),
         ("both.py", PY_BOTH, "py"), ("both.py", PY_BOTH, "numba"), ("both.py", PY_BOTH, "c")]


@pytest.mark.parametrize("name,target", [(name, target) for name in SEEN_IN_PLACE
                                         for target in (["c"] if name.endswith(".c") else ["py", "numba", "c"])])
def test_a_helper_called_in_place_re_runs_in_place(tmp_path, name, target):
    if target == "c" and shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    path = tmp_path / name
    path.write_text(SEEN_IN_PLACE[name])
    assert main(["check", str(path), "--func", "f", "--wrt", "x,w", "--sizes", "x=5,n=5", "--target", target,
                 "--seed", "3", "--range", "0.2,0.9"]) == 0


@pytest.mark.parametrize("name,source,target", CASES)
def test_gradient_of_a_helper_called_on_overlapping_arrays(tmp_path, name, source, target):
    if target == "c" and shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    path = tmp_path / name
    path.write_text(source)
    assert main(["check", str(path), "--func", "f", "--wrt", "x", "--sizes", "x=6,n=6", "--target", target,
                 "--seed", "2"]) == 0


@pytest.mark.parametrize("name,source,target,calls", [
    ("shifted.c", C_SHIFTED, "c", [("axpy", 10, "xv", "yv")]),
    ("in_place.c", C_IN_PLACE, "c", [("relax", 10, "in", "out")]),
    ("both.py", PY_BOTH, "py", [("relax", 18, "inp", "out")]),
])
def test_the_header_says_why(name, source, target, calls):
    text = pipeline.gradient_source(source, name, "f", ["x"], target)
    for callee, line, first, second in calls:
        assert f"The call of {callee} at line {line} passes one array as both '{first}' and '{second}', " \
               "which it writes." in text
    assert "Translated as with --may-alias" in text


def test_arrays_that_do_not_overlap_keep_the_default():
    """Distinct arrays, or one array passed twice to a function that only reads it: no note, and
    the same gradient as before (the contract's no-overlap assumption still serves them)."""
    distinct = C_IN_PLACE.replace("double w[16];", "double w[16], v[16];").replace(
        "relax(n, w, w);", "relax(n, w, v);").replace("s += w[i]", "s += v[i]")
    read_twice = "static double dot(int n, const double *a, const double *b)\n{\n    double s = 0.0;\n" \
                 "    for (int i = 0; i < n; i++) s += a[i] * b[i];\n    return s;\n}\n\n" \
                 "double f(const double *x, int n)\n{\n    return dot(n, x, x);\n}\n"
    for source in (distinct, read_twice):
        assert "--may-alias" not in pipeline.gradient_source(source, "f.c", "f", ["x"], "c")


VIEW_AND_ITS_ARRAY = """\
import numpy as np


def chain(xv, yv, n):
    for i in range(n - 2):
        yv[i + 2] = yv[i + 2] + xv[i]


def f(x: "f64[n]", n: int):
    w = np.zeros(n)
    for i in range(n):
        w[i] = x[i] * x[i]
    chain(w[1:], w, n)
    return np.sum(w)
"""


def test_a_part_given_beside_the_array_the_callee_writes_is_refused():
    from s2sad.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(VIEW_AND_ITS_ARRAY, "view.py", "f", ["x"], "py")
    text = info.value.render()
    assert "view.py:13:5: error: 'chain' writes the array it is given as 'yv' while it may read a part of " \
           "that array given as 'xv'" in text and "NumPy passes the part as a view" in text
    for other in ("chain(w[1:].copy(), w, n)", "chain(x[1:], w, n)"):  # a copy, another array: as before
        pipeline.gradient_source(VIEW_AND_ITS_ARRAY.replace("chain(w[1:], w, n)", other), "view.py", "f", ["x"], "py")
