"""np.diff read as the slices it computes (s2sad/parse/py_spellings.py): x[..., 1:] - x[..., :-1],
along axis=k, n times; every gradient checked against central differences."""

from __future__ import annotations

import numpy as np
import pytest
from fd import ParamSpec, central_difference
from source_gradients import HEADER, arr, check_command, check_source, count, load, num, the_refusal

from s2sad import cli, pipeline
from s2sad.diagnostics import DiagnosticError

CASES = {
    "vector": ("def f(u):\n    return np.sum(np.abs(np.diff(u)))\n", ["u"], [arr("u", 6)]),
    "rows_twice_and_columns": (
        'def f(A: "f64[m, n]"):\n    return np.sum(np.diff(A, n=2, axis=0) ** 2) + np.sum(np.diff(A) * A[:, 1:])\n',
        ["A"], [arr("A", 4, 5)]),
    "of_an_expression": (
        'def f(x: "f64[n]", a: float):\n    return np.sum(np.diff(np.exp(a * x), 2) ** 2)\n',
        ["x", "a"], [arr("x", 6), num("a")]),
    "negative_axis": (
        'def f(T: "f64[k, m, n]"):\n    return np.sum(np.tanh(np.diff(T, axis=-2)))\n', ["T"], [arr("T", 2, 3, 4)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", list(CASES))
def test_diff_is_differentiated_as_its_slices(name, target):
    source, wrt, params = CASES[name]
    text = check_source(HEADER + source, wrt, params, target=target)  # against central differences
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert "np.diff" not in code and "1:" in code  # the slices, whose adjoints add into parts


def test_a_diff_that_would_not_mean_the_same_is_refused_where_it_is_read():
    src = HEADER + "def f(x):\n    return np.sum(np.diff(x, prepend=0.0))\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "prog.py", "f", ["x"], "py")
    d = info.value.diagnostics[0]
    assert d.loc.line == 7 and "np.diff" in d.message, d


def test_a_diff_of_a_helper_call_is_not_evaluated_twice():
    """np.diff(g(x)) is left as it is (g might write an array): a located refusal, not two calls."""
    src = HEADER + "def g(x):\n    return x * 2.0\n\n\ndef f(x):\n    return np.sum(np.diff(g(x)))\n"
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "prog.py", "f", ["x"], "py")
    assert "np.diff" in info.value.diagnostics[0].message


# np.clip with one bound None is np.maximum / np.minimum, as NumPy defines it; A.trace() and
# A.diagonal() are np.trace(A) and np.diagonal(A) (probe round 5: refused before).
SPELLINGS = {
    "clip_open_above": ("def f(x: \"f64[n]\", c: float):\n    return np.sum(np.log(np.clip(x, 1e-3, None)) * c)\n",
                        ["x", "c"], [arr("x", 6), num("c")]),
    "clip_open_below": ("def f(x: \"f64[n]\", c: float):\n    a = np.clip(x, None, 0.5 * c)\n"
                        "    return np.sum(a * a)\n",
                        ["x", "c"], [arr("x", 6), num("c")]),
    "clip_method_of_element": ("def f(x: \"f64[n]\", c: float):\n    s = 0.0\n    for i in range(x.shape[0]):\n"
                               "        s += np.clip(x[i], -c, None) ** 2 + x.clip(0.1, None)[i]\n    return s\n",
                               ["x", "c"], [arr("x", 5), num("c")]),
    "where_of_numbers": ('def f(x: "f64[n]", c: float):\n    s = 0.0\n    for i in range(x.shape[0]):\n'
                         "        s += np.where(x[i] > c, x[i] ** 2, c * x[i]) + np.where(x[i] < 0, 1, 2 * c)\n"
                         "    return s\n", ["x", "c"], [arr("x", 7), num("c")]),
    "trace_and_diagonal_methods": ('def f(A: "f64[n, n]"):\n    return (A.T @ A).trace() + np.sum(A.diagonal() ** 3)\n',
                                   ["A"], [arr("A", 4, 4)]),
    # a helper's 2-D use of a copy of a parameter gives the parameter its axes (u = img.copy(): probe round 6)
    "rank_through_a_copy": ("def lap(u):\n    out = np.zeros_like(u)\n"
                            "    out[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] - 2.0 * u[1:-1, 1:-1]\n"
                            "    return out\n\n\n"
                            "def f(img, c: float):\n    u = img.copy()\n    for _ in range(2):\n"
                            "        u = u + c * lap(u)\n    return np.sum(u ** 2)\n", ["img", "c"],
                            [arr("img", 4, 5), num("c")]),
    # np.median of an odd count (the middle entry) and of a matrix's even count (the mean of two)
    "median": ('def f(x: "f64[n]", A: "f64[m, k]"):\n    m = np.median(x)\n'
               "    return np.sum((x - m) ** 2) + np.median(A) * m\n", ["x", "A"], [arr("x", 7), arr("A", 2, 3)]),
    # np.tensordot: axes=k (2 by default, 0 an outer product) and pairs of axes, as an einsum
    "tensordot": ('def f(T: "f64[a, b, c]", M: "f64[b, c]", v: "f64[a]", A: "f64[a, b]"):\n'
                  "    s = np.tensordot(T, M) @ v + np.sum(np.tensordot(T, M, axes=([1], [0])) ** 2)\n"
                  "    return s + np.tensordot(v, v, 0)[0, 1] + np.sum(np.tensordot(A, M, axes=1) ** 2)\n",
                  ["T", "M", "v", "A"], [arr("T", 3, 4, 2), arr("M", 4, 2), arr("v", 3), arr("A", 3, 4)]),
    # np.tril / np.triu with k (np.triu(A, k) is A without np.tril(A, k - 1)), of a matrix not square
    "triangles": ('def f(A: "f64[m, n]"):\n'
                  "    s = np.sum(np.triu(A, 1) ** 2) + np.sum(np.tril(A, -1) * A)\n"
                  "    return s + np.sum(np.triu(A) ** 3) + np.sum(np.tril(A, k=1))\n", ["A"], [arr("A", 4, 3)]),
    # x.astype(float) of a mask, of integers, of floats (a copy), and to int (no derivative there)
    "astype": ('def f(x: "f64[n]", k: "i64[n]"):\n'
               "    w = (x > 0.2).astype(np.float64) + k.astype(float) * 0.5 + x.astype(\"float64\") ** 2\n"
               "    return np.sum(w * x) + np.sum((x * 3.0).astype(int) * x)\n",
               ["x"], [arr("x", 8), ParamSpec("k", "array", (8,), dtype="i64", ints=(0, 4))]),
    # SciPy's softmax and log_softmax (of all the entries, along an axis), np.hypot, np.all / np.any in
    # a condition, the size of an array an expression makes
    "softmax": ("from scipy.special import log_softmax, softmax\n\n\n"
                'def f(z: "f64[n]", Z: "f64[m, n]"):\n'
                "    s = np.sum(softmax(z) * z) + np.sum(log_softmax(z)) + np.sum(softmax(Z, axis=1)[:, 0] ** 2)\n"
                "    return s + np.sum(log_softmax(Z, axis=0) * Z) + np.sum(np.hypot(z, 2.0 * z[::-1]))\n",
                ["z", "Z"], [arr("z", 5), arr("Z", 3, 5)]),
    "all_and_any": ('def f(x: "f64[n]"):\n    s = np.sum(x)\n    if np.all(x > -0.5) and np.any(x > 0.5):\n'
                    "        s = np.sum(x ** 2)\n"
                    "    return s * (x[1:] > 0.0).size + (np.all(x) + np.any(x > 9.0)) * x[0]\n",
                    ["x"], [arr("x", 6)]),
    # np.cross of 3-vectors, and row by row of arrays of them
    "cross": ('def f(a: "f64[3]", b: "f64[3]", P: "f64[n, 3]", Q: "f64[n, 3]"):\n'
              "    return np.sum(np.cross(a, b) ** 2) + np.cross(a, b) @ a + np.sum(np.cross(P, Q) * P)\n",
              ["a", "b", "P", "Q"], [arr("a", 3), arr("b", 3), arr("P", 4, 3), arr("Q", 4, 3)]),
    # np.percentile / np.quantile by the linear method: between two sorted entries, the ends, and q active
    "percentile": ('def f(x: "f64[n]", A: "f64[m, k]", q: float):\n'
                   "    p = np.percentile(x, 75.0) + np.quantile(A * A, 0.3) * np.percentile(x, q * 100.0)\n"
                   '    return p + np.percentile(x, 100.0) - np.quantile(x ** 3, 0.0, method="linear")\n',
                   ["x", "A", "q"], [arr("x", 7), arr("A", 2, 3), num("q", 0.05, 0.95)]),
    # E.item() of a computed number is the number (probe round 8: a call not supported, "call a
    # function by its name")
    "item": ('def f(w: "f64[n]", x: "f64[n]"):\n'
             "    return ((w @ x).item() + np.sum(x * x).item()) * np.max(w).item()\n",
             ["w", "x"], [arr("w", 4), arr("x", 4)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", list(SPELLINGS))
def test_other_spellings_match_central_differences(name, target):
    source, wrt, params = SPELLINGS[name]
    check_source(HEADER + source, wrt, params, target=target)


def test_clip_with_no_bound_at_all_is_refused_at_the_call():
    source = HEADER + "def f(x):\n    return np.sum(np.clip(x, None, None))\n"
    with pytest.raises(DiagnosticError, match="np.clip needs a lower or an upper bound"):
        pipeline.gradient_source(source, "prog.py", "f", ["x"], "py")


def test_where_of_numbers_takes_a_comparison():
    source = HEADER + "def f(x: float):\n    return np.where(x, 1.0, 2.0)\n"
    with pytest.raises(DiagnosticError, match="the condition of np.where must be a comparison"):
        pipeline.gradient_source(source, "prog.py", "f", ["x"], "py")


@pytest.mark.parametrize("target", ["py", "numba"])
def test_where_of_a_mask_of_numbers_takes_what_is_not_zero(target):
    """np.where(mask, z, -np.inf) of a mask of 0s and 1s, as NumPy reads it (it was refused:
    "the condition of np.where must be a comparison of arrays")."""
    source = HEADER + ("def f(z: \"f64[n]\", mask: \"f64[n]\", k: \"i64[n]\"):\n"
                       "    z2 = np.where(mask, z, -np.inf)\n"
                       "    e = np.exp(z2 - np.max(z2))\n"
                       "    return np.sum((e / e.sum()) ** 2) + np.sum(np.where(k, z ** 2, 0.0))\n")
    grad = load(pipeline.gradient_source(source, "prog.py", "f", ["z"], target), "<grad f>")["grad_f"]
    primal = load(source, "<f>")["f"]
    z, mask, k = np.array([0.3, -0.2, 0.9, 0.1, 0.5]), np.array([1.0, 0.0, 1.0, 1.0, 0.0]), np.array([0, 2, 0, 1, 0])
    d_z = np.zeros(5)
    (grad.py_func if target == "numba" else grad)(z, d_z, mask, k)
    expected = central_difference(lambda v: primal(v, mask, k), [z], 0)
    np.testing.assert_allclose(d_z, expected, rtol=1e-6, atol=1e-9)
    assert d_z[4] == 0.0 and d_z[1] != 0.0  # z[4] is masked out of both; z[1] enters through k


FULL = HEADER + '''def f(x: "f64[n]", c: float):
    a = np.full(x.shape[0], c)
    b = np.full((2, x.shape[0]), 0.5 * c)
    return np.sum(a * x) + np.sum(b @ x) + np.sum(np.full_like(x, c * c) * np.sin(x))
'''


@pytest.mark.parametrize("target", ["py", "numba"])
def test_np_full_and_full_like_match_central_differences(target):
    """np.full(shape, v) and np.full_like(x, v), v differentiated too (refused before)."""
    text = check_source(FULL, ["x", "c"], [arr("x", 5), num("c")], target=target)
    assert "np.full(" in text


@pytest.mark.parametrize("body, message", [
    ("return np.sum(np.full(x.shape[0], k) * x)", "np.full with an integer value makes an integer array"),
    ("return np.sum(np.full_like(i, 0.5) * x)", "np.full_like of an integer array makes an integer array"),
])
def test_np_full_of_integers_is_refused_where_numpy_makes_an_integer_array(body, message):
    source = HEADER + f'def f(x: "f64[n]", k: int, i: "i64[n]"):\n    {body}\n'
    with pytest.raises(DiagnosticError, match=message):
        pipeline.gradient_source(source, "prog.py", "f", ["x"], "py")


def _indices(name: str, *shape: int, high: int) -> ParamSpec:
    return ParamSpec(name, "array", tuple(shape), dtype="i64", ints=(0, high))


# An index that is a part of an index array, sliced where it is used (E[tokens[i:i + w]],
# x[pairs[:, 0]]), picks as the array it is would: NumPy's integer-array indexing (refused
# before: the part was taken for a number).
INDEX_PARTS = {
    "window_of_tokens": ('def f(E: "f64[v, d]", tokens: "i64[m]", w: int):\n    total = 0.0\n'
                         "    for i in range(len(tokens) - w + 1):\n        h = E[tokens[i:i + w]]\n"
                         "        total += np.sum(np.tanh(h) ** 2)\n    return total\n",
                         ["E"], [arr("E", 6, 3), _indices("tokens", 7, high=5), count("w", 3)]),
    "columns_of_pairs": ('def f(x: "f64[n]", pairs: "i64[m, 2]"):\n'
                         "    return np.sum(x[pairs[:, 0]] * x[pairs[:, 1]])\n",
                         ["x"], [arr("x", 8), _indices("pairs", 5, 2, high=7)]),
    "beside_arange": ('def f(logp: "f64[r, k]", labels: "i64[m]"):\n    n = logp.shape[0]\n'
                      "    return -np.sum(logp[np.arange(n), labels[:n]])\n",
                      ["logp"], [arr("logp", 4, 5), _indices("labels", 6, high=4)]),
    "mask_part": ('def f(x: "f64[n]"):\n    keep = x > 0.2\n    return np.sum(x[:3][keep[:3]] ** 2)\n',
                  ["x"], [arr("x", 6)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", list(INDEX_PARTS))
def test_a_sliced_index_array_picks_as_an_index_array(name, target):
    source, wrt, params = INDEX_PARTS[name]
    check_source(HEADER + source, wrt, params, target=target)


def test_a_sliced_index_array_in_c_output():
    """C output of x[pairs[:, 0]]: the gather by a column of an integer matrix, compiled with
    gcc's warnings and run, gives the Python gradient's adjoints (checked against central
    differences above)."""
    import ctypes

    import numpy as np
    from cbuild import build, have_gcc

    if not have_gcc():
        pytest.skip("no gcc")
    source, wrt, _ = INDEX_PARTS["columns_of_pairs"]
    c_text = pipeline.gradient_source(HEADER + source, "prog.py", "f", wrt, "c")
    assert "void grad_f(double *x, double *d_x, long *pairs, long n, long m, double d_return)" in c_text
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 8)
    pairs = rng.integers(0, 8, (5, 2))
    want = np.zeros(8)
    load(pipeline.gradient_source(HEADER + source, "prog.py", "f", wrt, "py"), "<grad f>")["grad_f"](
        x.copy(), want, pairs, 1.0)
    got = np.zeros(8)
    dp = ctypes.POINTER(ctypes.c_double)
    build(c_text).grad_f(x.ctypes.data_as(dp), got.ctypes.data_as(dp),
                         np.ascontiguousarray(pairs, dtype=np.int64).ctypes.data_as(ctypes.POINTER(ctypes.c_long)),
                         ctypes.c_long(8), ctypes.c_long(5), ctypes.c_double(1.0))
    assert np.allclose(got, want, rtol=1e-12, atol=1e-14) and np.any(want != 0.0)


# A store at a part of an index array (y[idx[:3]] = v, out[pairs[:, 0], pairs[:, 1]] -= x): NumPy's
# assignment at integer-array indices, as y[idx] = v is (refused before: the part was taken for a
# number). Indices repeat: the last store stays, as in NumPy.
STORES_AT_PARTS = {
    "window_stored": ('def f(x: "f64[n]", idx: "i64[m]", w: "f64[n]"):\n    y = np.zeros(x.shape[0])\n'
                      "    y[idx[:3]] = x[:3] * 2.0\n    y[idx[3:]] = np.exp(x[3:5])\n"
                      "    return np.sum(np.sin(y) * w)\n",
                      ["x", "w"], [arr("x", 6), _indices("idx", 5, high=6), arr("w", 6)]),
    "columns_updated": ('def f(x: "f64[m]", pairs: "i64[m, 2]"):\n    out = np.ones((4, 4))\n'
                        "    out[pairs[:, 0], pairs[:, 1]] -= x\n    return np.sum(out ** 3)\n",
                        ["x"], [arr("x", 5), _indices("pairs", 5, 2, high=4)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", list(STORES_AT_PARTS))
def test_a_store_at_a_sliced_index_array(name, target):
    source, wrt, params = STORES_AT_PARTS[name]
    check_source(HEADER + source, wrt, params, target=target)


def test_a_store_at_a_sliced_index_array_in_c_output(tmp_path):
    """C output, compiled and checked against central differences by s2sad check."""
    from cbuild import have_gcc

    from s2sad.cli import main

    if not have_gcc():
        pytest.skip("no gcc")
    source, wrt, _ = STORES_AT_PARTS["window_stored"]
    path = tmp_path / "prog.py"
    path.write_text(HEADER + source)
    assert main(["check", str(path), "--func", "f", "--wrt", ",".join(wrt), "--target", "c",
                 "--sizes", "x=6,idx=5,w=6"]) == 0


# np.searchsorted (a.searchsorted(v)): where keys go in a sorted vector, a binary search whose
# positions are then read (refused before).
SEARCHES = {
    "interpolated_by_hand": ('def f(x: float, fp: "f64[n]"):\n    xp = np.linspace(0.0, 1.0, fp.shape[0]) ** 2\n'
                             "    i = np.searchsorted(xp, x)\n    t = (x - xp[i - 1]) / (xp[i] - xp[i - 1])\n"
                             "    return fp[i - 1] * (1 - t) + fp[i] * t\n",
                             ["x", "fp"], [num("x", 0.05, 0.95), arr("fp", 6)]),
    "bins_of_a_vector": ('def f(x: "f64[m]", w: "f64[k]"):\n    edges = np.linspace(0.0, 1.0, w.shape[0])\n'
                         '    bins = edges.searchsorted(x, side="right")\n'
                         "    return np.sum(w[bins - 1] * x ** 2)\n",
                         ["x", "w"], [ParamSpec("x", "array", (5,), low=0.02, high=0.98), arr("w", 4)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", list(SEARCHES))
def test_searchsorted_matches_central_differences(name, target):
    source, wrt, params = SEARCHES[name]
    check_source(HEADER + source, wrt, params, target=target)


_POSITIONS = 'def f(a: "f64[n]", keys: "f64[m]", w: "f64[m]"):\n    return np.sum(w * np.searchsorted(a, keys{}))\n'


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_searchsorted_gives_numpys_positions(side, target):
    """The gradient with respect to w is the positions themselves: NumPy's, with equal entries,
    keys past both ends, NaN keys and NaN entries (sorted last, after every number)."""
    import ctypes

    import numpy as np

    a = np.array([-1.0, 0.0, 0.0, 0.0, 2.5, 3.0, 3.0, np.nan])
    keys = np.array([-5.0, -1.0, 0.0, 0.1, 2.5, 3.0, 4.0, np.nan, np.inf, -np.inf])
    source = HEADER + _POSITIONS.format(f', side="{side}"' if side == "right" else "")
    text = pipeline.gradient_source(source, "prog.py", "f", ["w"], target)
    d_w = np.zeros(keys.size)
    if target == "c":
        from cbuild import build, have_gcc

        if not have_gcc():
            pytest.skip("no gcc")
        dp = ctypes.POINTER(ctypes.c_double)
        build(text).grad_f(a.ctypes.data_as(dp), keys.ctypes.data_as(dp), np.ones(keys.size).ctypes.data_as(dp),
                           d_w.ctypes.data_as(dp), ctypes.c_long(a.size), ctypes.c_long(keys.size),
                           ctypes.c_double(1.0))
    else:
        if target == "numba":
            pytest.importorskip("numba")
        load(text, "<grad f>")["grad_f"](a, keys, np.ones(keys.size), d_w)
    assert np.array_equal(d_w, np.searchsorted(a, keys, side=side))


@pytest.mark.parametrize("call, message", [
    ('np.searchsorted(x, 0.5, side="middle")', "side is \"left\" or \"right\""),
    ("np.searchsorted(x, 0.5, sorter=np.argsort(x))", "with side= alone"),
    ("np.searchsorted(np.outer(x, x), 0.5)", "supported in a vector"),
])
def test_searchsorted_refusals_are_located(call, message):
    _refused_at_line_7(HEADER + f'def f(x: "f64[n]"):\n    i = {call}\n    return x[i - 1]\n', message)


def _refused_at_line_7(src: str, message: str) -> None:
    """``src`` refused at its line 7 (the call's, after HEADER and the signature) with ``message``."""
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "prog.py", "f", ["x"], "py")
    d = info.value.diagnostics[0]
    assert d.loc.line == 7 and message in d.message, d


# np.argsort (x.argsort()): the positions that sort a vector, used to index (refused before).
ARGSORTS = {
    "default_kind": ("def f(x, w):\n    order = np.argsort(x)\n    return np.sum(w * x[order])\n",
                     ["x", "w"], [arr("x", 7), arr("w", 7)]),
    "stable_method_top_three": ('def f(x: "f64[n]", w: "f64[n]"):\n    order = x.argsort(kind="stable")\n'
                                "    top = order[::-1][:3]\n    return np.sum(np.exp(w[top]) * x[top])\n",
                                ["x", "w"], [arr("x", 7), arr("w", 7)]),
    "heapsort_ranks": ('def f(x: "f64[n]", w: "f64[n]"):\n    order = np.argsort(x, kind="heapsort")\n'
                       "    return np.sum(w[order] * np.arange(x.shape[0]))\n", ["w"], [arr("x", 6), arr("w", 6)]),
    "the_call_as_index": ('def f(X: "f64[n, k]", y: "f64[n]"):\n'
                          "    ranks = np.arange(X.shape[0])[:, None]\n"
                          "    return np.sum(X[np.argsort(y)] * ranks) + np.sum(y[np.arange(2)])\n",
                          ["X", "y"], [arr("X", 5, 3), arr("y", 5)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", list(ARGSORTS))
def test_argsort_matches_central_differences(name, target):
    source, wrt, params = ARGSORTS[name]
    check_source(HEADER + source, wrt, params, target=target)


def _ranks_gradient(target: str, kind: str):
    source = HEADER + ARGSORTS["heapsort_ranks"][0].replace(', kind="heapsort"', kind)
    text = pipeline.gradient_source(source, "prog.py", "f", ["w"], target)
    return load(text, "<grad f>")["grad_f"]


def test_python_output_orders_equal_entries_as_the_primal():
    """Where entries are equal, which position comes first is the sort's choice, and w[order]
    reads by it: Python output sorts with the primal's own kind (np.argsort(x), NumPy's
    quicksort), so each w gets the rank the primal gave it."""
    import numpy as np

    x = np.array([2.0, 1.0, 2.0, 1.0, 2.0, 0.5, 1.0, 2.0] * 3)
    d_w = np.zeros(x.size)
    _ranks_gradient("py", "")(x, np.ones(x.size), d_w)
    want = np.empty(x.size)
    want[np.argsort(x)] = np.arange(x.size)  # the primal's ranks
    assert np.array_equal(d_w, want)


def test_numba_output_refuses_equal_entries_of_an_unstable_sort():
    """Numba's quicksort orders equal entries unlike NumPy's: Numba output sorts stably, which is
    NumPy's order where no two entries are equal, and raises where two are; with kind="stable"
    there is one order, and Numba output gives it."""
    import numpy as np

    pytest.importorskip("numba")
    x = np.array([2.0, 1.0, 2.0, 0.5])
    with pytest.raises(ValueError, match="equal entries"):
        _ranks_gradient("numba", "")(x, np.ones(4), np.zeros(4))
    d_w = np.zeros(4)
    _ranks_gradient("numba", ', kind="stable"')(x, np.ones(4), d_w)
    assert np.array_equal(d_w, [2.0, 1.0, 3.0, 0.0])


@pytest.mark.parametrize("call, message", [
    ('np.argsort(x, kind="fastest")', "np.argsort's kind is one of NumPy's"),
    ("np.argsort(np.outer(x, x))", "np.argsort is supported of a vector"),
])
def test_argsort_refusals_are_located(call, message):
    _refused_at_line_7(HEADER + f'def f(x: "f64[n]"):\n    order = {call}\n    return np.sum(x[order[:2]])\n',
                       message)


def test_argsort_for_c_output_is_refused_by_its_name():
    src = HEADER + ARGSORTS["heapsort_ranks"][0]
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(src, "prog.py", "f", ["w"], "c")
    assert "np.argsort is not supported for C output" in info.value.diagnostics[0].message


# np.maximum.accumulate and np.minimum.accumulate (the running extreme, a loop whose adjoint is the
# loop's), np.add.accumulate and np.multiply.accumulate (np.cumsum and np.cumprod): refused before.
ACCUMULATES = {
    "running_max": ('def f(x: "f64[n]", w: "f64[n]"):\n    peak = np.maximum.accumulate(x)\n'
                    "    return np.sum(w * (peak - x) ** 2) + np.max(peak)\n", ["x", "w"], [arr("x", 9), arr("w", 9)]),
    "running_min_and_ufunc_scans": ('def f(x: "f64[n]", w: "f64[n]"):\n    lo = np.minimum.accumulate(x * w)\n'
                                    "    return np.sum(lo ** 2) + np.sum(np.add.accumulate(x) * "
                                    "np.multiply.accumulate(w))\n", ["x", "w"], [arr("x", 8), arr("w", 8)]),
    "of_integers": ('def f(x: "f64[n]", idx: "i64[n]"):\n    return np.sum(x[np.maximum.accumulate(idx)] ** 2)\n',
                    ["x"], [arr("x", 6), _indices("idx", 6, high=5)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", list(ACCUMULATES))
def test_running_extremes_match_central_differences(name, target):
    source, wrt, params = ACCUMULATES[name]
    text = check_source(HEADER + source, wrt, params, target=target)
    assert "accumulate" not in "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


@pytest.mark.parametrize("name", ["running_max", "running_min_and_ufunc_scans"])
def test_running_extremes_in_c_output(name, tmp_path):
    """C output, compiled and checked against central differences by s2sad check."""
    from cbuild import have_gcc

    from s2sad.cli import main

    if not have_gcc():
        pytest.skip("no gcc")
    source, wrt, _ = ACCUMULATES[name]
    path = tmp_path / "prog.py"
    path.write_text(HEADER + source)
    assert main(["check", str(path), "--func", "f", "--wrt", ",".join(wrt), "--target", "c",
                 "--sizes", "x=7,w=7"]) == 0


@pytest.mark.parametrize("call", ["median(x)", "percentile(x, 20.0)", "quantile(x, 0.2)"])
def test_np_median_in_c_output_is_refused_by_its_own_name(tmp_path, capsys, call):
    path = tmp_path / "m.py"
    path.write_text(HEADER + f"def f(x):\n    return np.{call} * np.sum(x)\n")
    assert cli.main(["grad", str(path), "--wrt", "x", "--target", "c"]) == 1
    err = capsys.readouterr().err
    assert f"error: np.{call.split('(')[0]} is not supported for C output yet" in err and "^" in err


@pytest.mark.parametrize("call, message", [
    ("np.percentile(x, [25.0, 75.0])", "np.percentile of several percentiles at once is not supported"),
    ('np.quantile(x, 0.5, method="nearest")', "np.quantile is supported by its default (linear) method only"),
    ("np.percentile(x, 50.0, axis=0)", "np.percentile is supported of all the entries (without axis="),
])
def test_a_percentile_other_than_one_of_all_entries_is_a_located_error(call, message):
    source = HEADER + f'def f(x: "f64[n]"):\n    return {call} * np.sum(x)\n'
    d = the_refusal(source, ["x"])
    assert message in d.message and d.loc.line == source.count("\n"), d


@pytest.mark.parametrize("call, message, hint", [
    ("np.sum(x, dtype=float)", "np.sum() with dtype= is not supported", "it takes axis=, keepdims= here"),
    ("np.sort(x, axis=0)[0]", "np.sort is supported of a vector, without axis=", "sort each row"),
    ("np.tanh(x, out=x)[0]", "np.tanh() with out= is not supported", "or leave it out"),
])
def test_a_keyword_a_call_does_not_take_is_named_with_what_it_takes(call, message, hint):
    source = HEADER + f'def f(x: "f64[n]"):\n    return {call} * x[0]\n'
    d = the_refusal(source, ["x"])
    assert message in d.message and hint in (d.hint or ""), d


@pytest.mark.parametrize("axes, message", [
    ("axes=3", "np.tensordot contracts 3 axes, more than its operands have"),
    ("axes=([0, 1], [0])", "np.tensordot's axes must be two lists of integer literals of one length"),
    ("axes=([2], [0])", "np.tensordot's axes name an axis its operands do not have"),
])
def test_tensordot_axes_numpy_would_refuse_are_located_errors(axes, message):
    source = HEADER + f'def f(A: "f64[m, n]", B: "f64[n, k]"):\n    return np.sum(np.tensordot(A, B, {axes}))\n'
    d = the_refusal(source, ["A"])
    assert message in d.message, d


def test_an_index_array_of_floats_is_named_in_the_hint():
    """The hint names the index (it named 'labels' whatever the index was: probe round 7), and
    what it suggests is accepted."""
    source = HEADER + 'def f(E: "f64[v, d]", tokens: "f64[n]"):\n    return np.sum(E[tokens] ** 2)\n'
    d = the_refusal(source, ["E"])
    assert d.message == "an index array must hold integers" and 'tokens: "i64[n]"' in d.hint, d
    pipeline.gradient_source(source.replace("E[tokens]", "E[tokens.astype(int)]"), "prog.py", "f", ["E"], "py")


MESHGRID = HEADER + '''def grid_energy(u, h):
    n = u.shape[0]
    x = np.linspace(0.0, 1.0, n)
    X, Y = np.meshgrid(x, x)
    return np.sum(u * np.sin(np.pi * X) * Y) * h


def mesh_xy(a: "f64[n]", b: "f64[m]"):
    X, Y = np.meshgrid(a, b)
    return np.sum(np.sin(X) * Y ** 2 + X * np.arange(a.shape[0]))


def mesh_ij(a, b, c):
    A, B, C = np.meshgrid(a, b, c, indexing="ij")
    return np.sum(A * B + np.cos(C) * A * np.arange(c.shape[0]))


def mesh_sparse(a: "f64[n]", b: "f64[m]"):
    X, Y = np.meshgrid(a, b, sparse=True)
    return np.sum(np.exp(X * Y + X))


def mesh_one(a):
    (X,) = np.meshgrid(a)
    return np.sum(X ** 3)
'''


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("func, wrt, sizes", [
    ("grid_energy", "u,h", "u=4x4"), ("mesh_xy", "a,b", "a=3,b=4"), ("mesh_ij", "a,b,c", "a=2,b=3,c=4"),
    ("mesh_sparse", "a,b", "a=3,b=4"), ("mesh_one", "a", "a=3")])
def test_meshgrid_is_the_broadcast_arrays_numpy_returns(tmp_path, capsys, func, wrt, sizes, target):
    """np.meshgrid(x, y) ("xy": x along the columns; "ij": along the first axis; sparse=True) as
    products with ones that broadcast, each input reaching its own output only."""
    source = MESHGRID
    if target == "c":  # (C output takes each array's rank from an annotation)
        source = source.replace('def grid_energy(u, h)', 'def grid_energy(u: "f64[n, n]", h: float)').replace(
            'def mesh_ij(a, b, c)', 'def mesh_ij(a: "f64[n]", b: "f64[m]", c: "f64[k]")').replace(
            'def mesh_one(a)', 'def mesh_one(a: "f64[n]")')
    check_command(tmp_path, capsys, source, func, wrt, sizes, target)


def test_a_meshgrid_keyword_it_does_not_read_is_left_to_be_refused():
    source = HEADER + ('def f(a: "f64[n]", k: str):\n    X, Y = np.meshgrid(a, a, indexing=k)\n'
                       '    return np.sum(X * Y)\n')
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "prog.py", "f", ["a"], "py")
    assert "meshgrid" in str(info.value), str(info.value)


def test_an_ellipsis_in_an_index_proves_the_axes_the_other_indices_need():
    """(y ** 2)[..., 1:] of an unannotated y: y has an axis (it was taken for a number)."""
    text = check_source(HEADER + "def f(y):\n    return np.sum((y ** 2)[..., 1:])\n", ["y"], [arr("y", 5)])
    assert "1:" in text


VANDER = HEADER + '''def polyfit_loss(y):
    t = np.linspace(0, 1, y.shape[0])
    V = np.vander(t, 3)
    c = np.linalg.solve(V.T @ V, V.T @ y)
    return np.sum(c ** 2)


def vander_x(x: "f64[n]", c: "f64[4]"):
    V = np.vander(x, 4, increasing=True)
    return np.sum((V @ c) ** 2)


def cross_plain(a, b):
    return np.sum(np.cross(a, b) ** 2)
'''


# (C output takes each array's rank from an annotation: the annotated program only)
@pytest.mark.parametrize("func, wrt, sizes, target", [
    (func, wrt, sizes, target) for func, wrt, sizes in [
        ("polyfit_loss", "y", "y=5"), ("vander_x", "x,c", "x=5,c=4"), ("cross_plain", "a,b", "a=3,b=3")]
    for target in ("py", "numba", "c") if target != "c" or func == "vander_x"])
def test_vander_and_an_unannotated_cross(tmp_path, capsys, func, wrt, sizes, target):
    """np.vander(x, N) as the stacked powers of x (literal exponents); np.cross's operands are
    arrays (a rank the gradient checks where nothing else shows it)."""
    check_command(tmp_path, capsys, VANDER, func, wrt, sizes, target)


def test_vanders_powers_are_exact_where_x_is_zero():
    text = pipeline.gradient_source(VANDER, "v.py", "vander_x", ["x", "c"], "py")
    grad = load(text, "<grad>")["grad_vander_x"]
    x, c = np.array([0.0, 0.5, -1.0, 0.0]), np.array([0.3, -0.2, 0.5, 0.1])
    d_x, d_c = np.zeros(4), np.zeros(4)
    grad(x, d_x, c, d_c)
    V = np.vander(x, 4, increasing=True)
    dV = np.stack([np.zeros(4), np.ones(4), 2 * x, 3 * x ** 2], axis=1)  # d x**k / dx
    assert np.allclose(d_x, 2 * (V @ c) * (dV @ c)) and np.allclose(d_c, 2 * V.T @ (V @ c))


# Rearranging and small arithmetic NumPy functions read as what they compute (py_spellings): each
# was refused as 'the NumPy function is not supported'.
REARRANGED = HEADER + """
def vector(x: "f64[n]"):
    y = np.flip(x) * np.flipud(x) + np.round(x, 2) + np.around(x) * x + np.deg2rad(x) + np.degrees(x) / 90.0
    z = np.append(x, 1.5) + np.append(x[:2], x[1:])
    w = np.tile(x[:2], 3) * np.repeat(x[:3], 2) + np.take(x, [0, 2, 1, 4, 3, 0])
    return np.sum(np.sin(y) ** 2) + np.sum(z ** 2) + np.sum(w ** 3) + np.ptp(x) + np.sum(np.ediff1d(x) ** 2)


def matrix(A: "f64[m, n]"):
    return np.sum(np.take(A, [0, 5]) ** 2) + np.sum(np.take(A, [2, 0], axis=0) * A[:2]) \\
        + np.sum(np.tile(A, 2) ** 3) + np.sum(np.repeat(A, 2) ** 2) + np.sum(np.ptp(A, axis=1) ** 2) \\
        + np.sum(np.append(A, -1.0) ** 2) + np.sum(np.round(A, -1) * A)
"""


@pytest.mark.parametrize("func, sizes, targets", [("vector", "x=5", ("py", "numba", "c")),
                                                  ("matrix", "A=3x4", ("py", "numba", "c"))])
def test_rearranging_functions_are_read_as_what_they_compute(tmp_path, capsys, func, sizes, targets):
    for target in targets:
        check_command(tmp_path, capsys, REARRANGED, func, sizes[0], sizes, target)


# A matrix flipped and sliced with steps (py_arrays: the rows a step picks, the columns as rows
# of the transpose): np.flip of every axis, of one, fliplr/flipud, steps with bounds, an index.
FLIPPED = HEADER + """
def f(A: "f64[n, m]", B: "f64[n, m]"):
    s = np.sum(np.flip(A, axis=0) * B) + np.sum(A[::-1, :] ** 2) + np.sum(np.fliplr(A) * B)
    s += np.sum(A[1:, ::-2] ** 3) + np.sum(A[0, ::-1] * A[-1]) + np.sum(np.flip(A) * B)
    s += np.sum(np.flipud(A) * np.flip(A, axis=-1) * np.flip(A, axis=1))
    return s + np.sum(A[::2, 1:] * A[::2, :-1]) + np.sum(np.flip(A[0]) * B[1])
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_a_matrix_flipped_and_sliced_with_steps(tmp_path, capsys, target):
    check_command(tmp_path, capsys, FLIPPED, "f", "A,B", "A=5x4,B=5x4", target)


def test_np_flip_of_every_axis_of_a_3d_array_needs_an_axis():
    d = the_refusal(HEADER + 'def f(A: "f64[m, n, k]"):\n    return np.sum(np.flip(A) * A)\n', ["A"])
    assert "np.flip of an array of 3 axes needs axis=" in d.message, d.message


# NaN-skipping reductions, NaN tests and np.sinc, read as what they compute (py_spellings): each
# was refused as 'the NumPy function is not supported'.
NAN_AWARE = HEADER + """
def f(x: "f64[k]", A: "f64[n, m]"):
    s = np.nansum(x ** 2) + np.nanmean(x) + np.nanmax(x) + np.nanmin(x * 2.0) + np.nanprod(x)
    s += np.sum(np.nansum(A, axis=0) ** 2) + np.sum(np.nanmean(A, axis=1, keepdims=True) * A)
    s += np.sum(np.where(np.isnan(A), 0.0, A) ** 3) + np.sum(np.where(np.isfinite(x), x, 0.0))
    return s + np.sum(np.sinc(x) * x) + np.sinc(s * 0.0) + np.sum(np.where(np.isinf(x), 0.0, x))
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_nan_aware_reductions_and_sinc_are_read_as_what_they_compute(tmp_path, capsys, target):
    check_command(tmp_path, capsys, NAN_AWARE, "f", "x,A", "x=5,A=4x3", target)


def test_nan_entries_have_derivative_zero_and_sinc_is_smooth_at_zero():
    source = HEADER + ('def f(x: "f64[n]", y: "f64[n]"):\n'
                       '    return np.nansum(x) * 2.0 + np.nanmean(x) + np.sum(np.sinc(y))\n')
    text = pipeline.gradient_source(source, "prog.py", "f", ["x", "y"], "py", pipeline.Options())
    assert "np.isnan(x)" in text and "x != x" not in text  # (ruff's PLR0124 rejects a comparison with itself)
    grad = load(text, "<grad f>")["grad_f"]
    x = np.array([0.5, np.nan, 0.0, -1.25, np.nan])
    y = np.array([0.5, 1e-3, 0.0, -1.25, 2.0])
    d_x, d_y = np.zeros(5), np.zeros(5)
    grad(x, d_x, y, d_y)
    kept = ~np.isnan(x)
    assert np.array_equal(d_x, np.where(kept, 2.0 + 1.0 / kept.sum(), 0.0)), d_x  # (a NaN entry: 0 exactly)
    slope = np.where(y == 0.0, 0.0, (np.cos(np.pi * y) - np.sinc(y)) / np.where(y == 0.0, 1.0, y))
    assert np.allclose(d_y, slope) and d_y[2] == 0.0, (d_y, slope)


@pytest.mark.parametrize("target", ["py", "numba"])
def test_nan_entries_have_derivative_zero_through_the_rules_before_the_reduction(target):
    """np.nansum(x ** 2) threw the NaN entries away, but its adjoint, 0 there, met the rule of x ** 2,
    2 x, NaN there: 0 * NaN made the gradient NaN at each NaN entry (adjoint/strong_zeros: where a
    select threw a NaN away, each rule reads its values masked by the adjoint)."""
    source = HEADER + ('def f(x: "f64[n]"):\n'
                       '    s = np.nansum(x ** 2) + np.nanmean(np.sin(x) * x) + np.nanmax(np.exp(x))\n'
                       '    return s + np.sum(np.where(np.isnan(x), 0.0, np.tanh(x) / (1.0 + x * x)))\n')
    text = pipeline.gradient_source(source, "prog.py", "f", ["x"], target, pipeline.Options())
    grad = load(text, "<grad f>")["grad_f"]
    f = load(source, "<f>")["f"]
    x = np.array([0.5, np.nan, 0.0, -1.25, np.nan, 2.0])
    d_x = np.zeros(6)
    grad(x, d_x)
    h = 1e-6
    want = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(6)]
    assert np.allclose(d_x, want, rtol=1e-6, atol=1e-8) and d_x[1] == d_x[4] == 0.0, (d_x, want)


# Probe round 11: np.array(y0, dtype=float) is np.array(y0).astype(float) (py_spellings), whose
# rank the copy's indexing gives y0, as np.array(y0)'s does (py_rank_uses, py_types): y0 was taken
# for a number and refused where the copy was made.
EULER = HEADER + """
def f(y0, k, dt=0.1, n=20):
    y = np.array(y0, dtype=float)
    traj = []
    for _ in range(n):
        y = y + dt * np.array([y[1], -k * y[0]])
        traj.append(y[0])
    return np.sum(np.array(traj) ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_converted_copy_gives_its_source_its_rank(tmp_path, capsys, target):
    check_command(tmp_path, capsys, EULER, "f", "y0,k", "y0=2", target)
