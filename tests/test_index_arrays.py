"""Integer-array indexing of rows and the triangle index functions, as pairwise code writes them.

``i, j = np.triu_indices(n, k=1)`` (and ``np.tril_indices``, with ``k`` and ``m``) gives the row
and column of each element of a triangle as NumPy orders them; ``X[i]`` and ``X[i, :]`` with an
integer array ``i`` pick whole rows (``arr.take`` with indices for the leading axes only), whose
adjoint adds each row back where it came from, repeated rows adding up. Every gradient is
checked against central differences, for Python, Numba and C."""

from __future__ import annotations

import numpy as np
import pytest
from cbuild import CFunction, build, have_gcc
from source_gradients import arr, check_source, count

from s2sad import pipeline

PAIRS = """
import numpy as np


def pair_energy(pos):
    n = pos.shape[0]
    i, j = np.triu_indices(n, k=1)
    d = pos[i] - pos[j]
    r = np.sqrt(np.sum(d * d, axis=1))
    return np.sum(1.0 / r)


def lower_band(A, n, m):
    i, j = np.tril_indices(n, -1, m)
    return np.sum(A[i, j] ** 2) + np.sum(np.sin(A[i, :]))


def embedding(E, tokens, w):
    h = E[tokens, :]
    return np.sum(np.tanh(h @ w))
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_pairwise_energy_over_triu_indices(target):
    check_source(PAIRS, ["pos"], [arr("pos", 5, 3)], target, func="pair_energy")


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("n, m", [(4, 4), (3, 5), (5, 2)])
def test_tril_indices_with_a_diagonal_and_a_width(target, n, m):
    source = PAIRS.replace("def lower_band(A, n, m):", f'def lower_band(A: "f64[{n}, {m}]", n: int, m: int):')
    check_source(source, ["A"], [arr("A", n, m), count("n", n), count("m", m)], target, func="lower_band")


def test_the_triangle_is_numpys():
    for n, k, m in [(4, 1, 4), (4, 0, 4), (3, -1, 5), (5, 2, 3), (0, 0, 0), (3, 7, 3)]:
        source = ("import numpy as np\n\n\ndef f(x, n: int, m: int):\n"
                  f"    i, j = np.triu_indices(n, {k}, m)\n    a, b = np.tril_indices(n, {k}, m)\n"
                  "    return np.sum(x[i, j] * 2.0) + np.sum(x[a, b] ** 2)\n")
        text = pipeline.gradient_source(source, "prog.py", "f", ["x"], "py")
        namespace: dict = {}
        exec(compile(text, "<grad>", "exec"), namespace)
        x = np.arange(1.0, 1.0 + max(n, 1) * max(m, 1)).reshape(max(n, 1), max(m, 1))[:n, :m].copy()
        d_x = np.zeros_like(x)
        namespace["grad_f"](x, d_x, n, m)
        want = np.zeros_like(x)
        want[np.triu_indices(n, k, m)] += 2.0
        want[np.tril_indices(n, k, m)] += 2.0 * x[np.tril_indices(n, k, m)]
        assert np.array_equal(d_x, want), (n, k, m, d_x, want)


@pytest.mark.parametrize("target", ["py", "numba"])
def test_rows_picked_by_an_index_array_repeat_and_add_up(target):
    source = PAIRS.replace("def embedding(E, tokens, w):", 'def embedding(E, tokens: "i64[t]", w):')
    tokens = np.array([2, 0, 2, 3, 2])
    text = pipeline.gradient_source(source, "prog.py", "embedding", ["E", "w"], target)
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    grad = namespace["grad_embedding"]
    grad = getattr(grad, "py_func", grad)
    rng = np.random.default_rng(0)
    E, w = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, 3)
    d_E, d_w = np.zeros_like(E), np.zeros_like(w)
    grad(E, d_E, tokens, w, d_w)
    primal: dict = {}
    exec(compile(source, "<primal>", "exec"), primal)
    f = primal["embedding"]
    h = 1e-6
    for k in np.ndindex(E.shape):
        e = np.zeros_like(E)
        e[k] = h
        assert np.isclose(d_E[k], (f(E + e, tokens, w) - f(E - e, tokens, w)) / (2 * h), rtol=1e-6, atol=1e-9)
    assert d_E[1].tolist() == [0.0, 0.0, 0.0]  # a row no token picks


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
def test_pairwise_energy_in_c():
    source = PAIRS.replace("def pair_energy(pos):", 'def pair_energy(pos: "f64[n, 3]", n: int):').replace(
        "    n = pos.shape[0]\n", "")
    lib = build(pipeline.gradient_source(source, "prog.py", "pair_energy", ["pos"], "c"))
    grad = CFunction(lib, "grad_pair_energy", ["double *", "double *", "long", "double"])
    primal: dict = {}
    exec(compile(source, "<primal>", "exec"), primal)
    f = primal["pair_energy"]
    pos = np.random.default_rng(3).uniform(-1, 1, (5, 3))
    d_pos = np.zeros_like(pos)
    grad(pos.copy(), d_pos, 5, 1.0)
    h = 1e-6
    for k in np.ndindex(pos.shape):
        e = np.zeros_like(pos)
        e[k] = h
        assert np.isclose(d_pos[k], (f(pos + e, 5) - f(pos - e, 5)) / (2 * h), rtol=1e-6, atol=1e-9)


# Assignment at index arrays (py_arrays.assign_at_indices): one store per index, in order, so
# repeated indices keep the last value, as NumPy does; augmented ones computed whole first.
STORES = """
import numpy as np


def svm(S, y: "i64[n]"):
    n, k = S.shape
    correct = S[np.arange(n), y]
    m = np.maximum(0, S - correct[:, None] + 1.0)
    m[np.arange(n), y] = 0
    return np.sum(m)


def softmax_grad(z, y: "i64[n]"):
    n = z.shape[0]
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    p[np.arange(n), y] -= 1.0
    return np.sum(p * p)


def chol_param(params, d: int):
    L = np.zeros((d, d))
    L[np.tril_indices(d)] = params
    return np.sum(L @ L.T) + np.sum(np.log(np.abs(np.diag(L))))


def repeated(x, idx: "i64[m]"):
    a = np.zeros(4)
    a[idx] = x
    a[idx] += 2.0 * x
    return np.sum(a * np.arange(1.0, 5.0))
"""


def _run(func, wrt, args, target="py"):
    text = pipeline.gradient_source(STORES, "prog.py", func, wrt, target)
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    primal: dict = {}
    exec(compile(STORES, "<primal>", "exec"), primal)
    grad = namespace[f"grad_{func}"]
    return getattr(grad, "py_func", grad), primal[func]


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("func, wrt", [("svm", "S"), ("softmax_grad", "z")])
def test_assignment_at_a_label_per_row(func, wrt, target):
    grad, f = _run(func, [wrt], None, target)
    rng = np.random.default_rng(1)
    S, y = rng.uniform(-1, 1, (5, 3)), np.array([0, 2, 1, 2, 0])
    d_S = np.zeros_like(S)
    grad(S.copy(), d_S, y)
    h = 1e-6
    for k in np.ndindex(S.shape):
        e = np.zeros_like(S)
        e[k] = h
        assert np.isclose(d_S[k], (f(S + e, y) - f(S - e, y)) / (2 * h), rtol=1e-6, atol=1e-8), k


@pytest.mark.parametrize("target", ["py", "numba"])
def test_assignment_at_a_triangle(target):
    grad, f = _run("chol_param", ["params"], None, target)
    p = np.array([1.2, 0.3, -0.9, 0.5, 0.2, 1.4])
    d_p = np.zeros_like(p)
    grad(p.copy(), d_p, 3)
    h = 1e-6
    for k in range(6):
        e = np.zeros(6)
        e[k] = h
        assert np.isclose(d_p[k], (f(p + e, 3) - f(p - e, 3)) / (2 * h), rtol=1e-6, atol=1e-8), k


@pytest.mark.parametrize("target", ["py", "numba"])
def test_repeated_indices_keep_the_last_value_as_numpy_does(target):
    grad, f = _run("repeated", ["x"], None, target)
    idx, x = np.array([1, 3, 1, 0]), np.array([0.5, -1.0, 2.0, 0.25])
    d_x = np.zeros_like(x)
    grad(x.copy(), d_x, idx)
    h = 1e-6
    want = [(f(x + h * e, idx) - f(x - h * e, idx)) / (2 * h) for e in np.eye(4)]
    assert np.allclose(d_x, want, rtol=1e-6, atol=1e-8), (d_x, want)
    assert d_x[0] == 0.0  # overwritten at index 1 by x[2]: no part of the value


# Columns picked by an integer array, a list of integers or a mask (X[:, [0, 2]], X[:, cols],
# X[:, m]), and rows by a list (X[[0, 2]]): feature selection as NumPy code writes it, each
# refused before with hints that led nowhere (probe round 10). Columns are the rows the index
# picks of the transpose, X.T[idx].T.
COLUMNS = """
import numpy as np


def literal_columns(X: "f64[m, n]"):
    Z = X[:, [0, 2]]
    return np.sum(Z**2)


def named_columns(X: "f64[m, n]"):
    cols = np.array([0, 2, 2])
    return np.sum(np.sin(X[:, cols]))


def masked_columns(X, y):
    m = y > 0
    return np.sum(X[:, m] ** 3)


def literal_rows(x):
    return np.sum(np.exp(x[[0, 2, -1]]))


def a_column_still(X, k: int):
    return np.sum(X[:, k] ** 2) + np.sum(X[:, 0])
"""

COLUMN_CASES = [("literal_columns", "X=3x4", ("py", "numba", "c")), ("named_columns", "X=3x4", ("py", "numba", "c")),
                ("masked_columns", "X=3x4,y=4", ("py", "numba")), ("literal_rows", "x=5", ("py", "numba")),
                ("a_column_still", "X=3x4,k=1", ("py",))]


@pytest.mark.parametrize("func, sizes, targets", COLUMN_CASES, ids=[c[0] for c in COLUMN_CASES])
def test_columns_picked_by_an_index_array_a_list_or_a_mask(func, sizes, targets, tmp_path, capsys):
    from source_gradients import check_command
    wrt = "x" if func == "literal_rows" else "X"
    for target in targets:
        check_command(tmp_path, capsys, COLUMNS, func, wrt, sizes, target)


# Probe round 11, the guessed ranks of unannotated parameters: a reduction along an axis with
# keepdims=True keeps the axis (logits was guessed 3-D, and logits[np.arange(n), labels] refused),
# and np.argsort's positions are an index array (w[order] made w a matrix, np.cumsum refused).
GUESSED = """
import numpy as np


def cross_entropy(logits, labels: "i64[n]"):
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return np.mean(lse - logits[np.arange(len(labels)), labels])


def weighted(x, w):
    order = np.argsort(x)
    cw = np.cumsum(w[order])
    return np.sum(cw * x[order]) / cw[-1]
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_guessed_ranks_through_keepdims_and_argsort(tmp_path, capsys, target):
    from source_gradients import check_command

    check_command(tmp_path, capsys, GUESSED, "cross_entropy", "logits", "logits=5x4,labels=5", target)
    check_source(GUESSED, ["x", "w"], [arr("x", 6), arr("w", 6)], target, func="weighted")
