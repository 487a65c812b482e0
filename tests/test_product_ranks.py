"""The ranks of unannotated operands of matrix products (parse/py_products).

``w @ cov @ w``, ``np.dot(x, W)``, ``np.dot(u, v)``, ``X.dot(w)``: nothing in such code proves
whether an operand is a vector or a matrix. The guess follows how the code is written (a chain
``a @ B @ c`` is a bilinear form, a capitalized name a matrix, two lower-case names a dot product
unless the product must be an array; a lower-case local on the right counts), every guess is
checked at the gradient's entry, and what the code does show (an index, ``.shape``) wins. Each
gradient is checked against central differences.
"""

from __future__ import annotations

import shutil

import pytest
from fd import ParamSpec
from source_gradients import HEADER, arr, check_source, num

from s2sad import pipeline
from s2sad.pipeline import parse_source

BILINEAR = HEADER + """
def f(x, A, y):
    return x @ A @ y
"""

QUADRATIC_LOWER = HEADER + """
def f(w, cov):
    return np.tanh(w @ cov @ w)
"""

VECTOR_MATRIX = HEADER + """
def f(x, W):
    return np.sum(np.tanh(np.dot(x, W)))
"""

DOT = HEADER + """
def f(u, v):
    return np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
"""

SAME_NAME = HEADER + """
def f(w, X, y, alpha):
    r = y - X @ w
    return 0.5 * np.dot(r, r) + alpha * np.dot(w, w)
"""

METHOD = HEADER + """
def f(X, w):
    return np.sum(np.exp(X.dot(w)))
"""

MATRIX_MATRIX = HEADER + """
def f(X, W):
    return np.sum(np.tanh(X @ W))
"""

# Two lower-case names whose product must be an array (it is multiplied again): the left one is
# a matrix, the common ``A @ x``.
LOWER_MATRIX = HEADER + """
def f(w1, x, W2):
    h = w1 @ x
    return np.sum(np.tanh(W2 @ h))
"""

# A lower-case local on the right is a vector too (alpha = np.linalg.solve(K, y)): np.dot(y, alpha)
# is a dot product, y a vector (it was taken for a matrix).
DOT_LOCAL = HEADER + """
def f(X, y):
    K = X @ X.T + np.eye(X.shape[0])
    alpha = np.linalg.solve(K, y)
    return 0.5 * np.dot(y, alpha)
"""

# A capitalized argument for a vector the callee only guessed (x @ W in dense): the caller's
# notation says a matrix, and dense's instance takes x as one (it was guessed a vector, and the
# gradient refused a batch X).
CALLER_MATRIX = HEADER + """
def dense(x, W, b):
    return np.tanh(x @ W + b)


def f(W1, b1, X):
    H = dense(X, W1, b1)
    return np.mean(H ** 2)
"""

# An index shows that x is a vector: the guess never overrides it.
INDEXED = HEADER + """
def f(x, A):
    return x[0] * np.sum(x @ A)
"""


def types(source: str) -> dict[str, str]:
    fn = parse_source(source, "prog.py", "f").functions["f"]
    return {p.name_hint: str(p.type) for p in fn.params}


FLOAT_OF_PRODUCT = HEADER + """
def f(x, W1, W2):
    h = np.tanh(W1 @ x)
    return float(W2 @ h)
"""

# The formula's transpose of a vector (x.T @ A @ x, NumPy's .T of a vector being the vector): a
# bilinear form still (x was taken for a matrix by its .T); a transposed operand alone is a matrix.
TRANSPOSED_QUADRATIC = HEADER + """
def f(x, A):
    return 0.5 * x.T @ A @ x
"""

TRANSPOSED_MATRIX = HEADER + """
def f(X, y):
    return np.sum((X.T @ y) ** 2)
"""

# A lower-case name times a matrix-vector product is a dot product (x was taken for a matrix, and
# f for a function returning an array; probe round 10).
NESTED_QUADRATIC = HEADER + """
def f(x, A):
    return x @ (A @ x) + 0.5 * np.sum(x * x)
"""

# w.T @ w of a lower-case w: the formula's squared norm, w a vector (its .T made it a matrix, and
# the natural call with a vector was refused at entry)
TRANSPOSED_SQUARE = HEADER + """
def f(w, X):
    return 0.5 * (w.T @ w) + np.sum(np.log1p(np.exp(-(X @ w))))
"""

V, M = "array<f64,1>", "array<f64,2>"


@pytest.mark.parametrize(("source", "expected"), [
    (BILINEAR, {"x": V, "A": M, "y": V}),
    (QUADRATIC_LOWER, {"w": V, "cov": M}),
    (VECTOR_MATRIX, {"x": V, "W": M}),
    (DOT, {"u": V, "v": V}),
    (SAME_NAME, {"w": V, "X": M}),
    (METHOD, {"X": M, "w": V}),
    (MATRIX_MATRIX, {"X": M, "W": M}),
    (LOWER_MATRIX, {"w1": M, "x": V, "W2": M}),
    (INDEXED, {"x": V, "A": M}),
    (DOT_LOCAL, {"X": M, "y": V}),
    (CALLER_MATRIX, {"W1": M, "X": M}),
    (FLOAT_OF_PRODUCT, {"W1": M, "W2": V}),  # float(...) takes a number: two vectors, whatever the case
    (TRANSPOSED_QUADRATIC, {"x": V, "A": M}),
    (TRANSPOSED_MATRIX, {"X": M, "y": V}),
    (NESTED_QUADRATIC, {"x": V, "A": M}),
    (TRANSPOSED_SQUARE, {"w": V, "X": M}),
], ids=["bilinear", "quadratic_lower_case", "vector_matrix", "dot", "same_name", "dot_method", "matrix_matrix",
        "lower_case_matrix", "indexed", "dot_with_a_local", "capitalized_argument", "float_of_a_product",
        "transposed_quadratic", "transposed_matrix", "nested_quadratic", "transposed_square"])
def test_the_guessed_ranks(source, expected):
    got = types(source)
    assert {k: got[k] for k in expected} == expected


@pytest.mark.parametrize(("source", "wrt", "params"), [
    (BILINEAR, ["x", "A", "y"], [arr("x", 3), arr("A", 3, 4), arr("y", 4)]),
    (QUADRATIC_LOWER, ["w", "cov"], [arr("w", 3), arr("cov", 3, 3)]),
    (VECTOR_MATRIX, ["x", "W"], [arr("x", 3), arr("W", 3, 4)]),
    (DOT, ["u", "v"], [arr("u", 4), arr("v", 4)]),
    # (y, alpha: numbers here; the gradient serves arrays too, tests/test_shape_generic.py)
    (SAME_NAME, ["w"], [arr("w", 3), arr("X", 5, 3), num("y"), num("alpha", 0.1, 1.0)]),
    (METHOD, ["X", "w"], [arr("X", 4, 3), arr("w", 3)]),
    (MATRIX_MATRIX, ["X", "W"], [arr("X", 4, 3), arr("W", 3, 2)]),
    (LOWER_MATRIX, ["w1", "W2"], [arr("w1", 4, 3), arr("x", 3), arr("W2", 2, 4)]),
    (INDEXED, ["x", "A"], [arr("x", 3), arr("A", 3, 2)]),
    (DOT_LOCAL, ["X", "y"], [arr("X", 4, 3), arr("y", 4)]),
    (CALLER_MATRIX, ["W1", "X"], [arr("W1", 3, 2), num("b1"), arr("X", 5, 3)]),
    (FLOAT_OF_PRODUCT, ["W1", "W2"], [arr("x", 3), arr("W1", 4, 3), arr("W2", 4)]),
    (TRANSPOSED_QUADRATIC, ["x", "A"], [arr("x", 3), arr("A", 3, 3)]),
    (TRANSPOSED_MATRIX, ["X", "y"], [arr("X", 4, 3), arr("y", 4)]),
    (NESTED_QUADRATIC, ["x", "A"], [arr("x", 3), arr("A", 3, 3)]),
    (TRANSPOSED_SQUARE, ["w", "X"], [arr("w", 3), arr("X", 4, 3)]),
], ids=["bilinear", "quadratic_lower_case", "vector_matrix", "dot", "same_name", "dot_method", "matrix_matrix",
        "lower_case_matrix", "indexed", "dot_with_a_local", "capitalized_argument", "float_of_a_product",
        "transposed_quadratic", "transposed_matrix", "nested_quadratic", "transposed_square"])
@pytest.mark.parametrize("target", ["py", "numba"])
def test_gradients_match_central_differences(source, wrt, params, target):
    check_source(source, wrt, params, target=target)


def test_a_guess_is_checked_at_entry():
    """``x @ A @ y`` called with a matrix ``x`` is another function: the gradient refuses it, naming
    the annotation to add."""
    text = pipeline.gradient_source(BILINEAR, "prog.py", "f", ["x", "A", "y"], "py")
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    import numpy as np

    x, A, y = np.ones((2, 3)), np.ones((3, 4)), np.ones(4)
    with pytest.raises(ValueError, match=r'x must be a 1-D array: its rank is not evident in f \(else annotate x'):
        namespace["grad_f"](x, np.zeros_like(x), A, np.zeros_like(A), y, np.zeros_like(y), d_return=np.ones(2))


# Stacks of matrices (NumPy's matmul over leading batch axes): np.einsum's spelling, whose adjoint
# is einsum's; a vector operand as matmul takes it; batch axes matched from the right.
BATCHED = HEADER + """
def f(A: "f64[b, m, n]", B: "f64[b, n, k]"):
    return np.sum(np.tanh(A @ B))
"""

BATCHED_VECTOR = HEADER + """
def f(A: "f64[b, m, n]", x: "f64[n]"):
    return np.sum(np.sin(A @ x))
"""

VECTOR_BATCHED = HEADER + """
def f(x: "f64[n]", B: "f64[b, n, k]"):
    return np.sum(np.sin(np.matmul(x, B)))
"""

BATCHED_MATRIX = HEADER + """
def f(A: "f64[a, b, m, n]", W: "f64[n, k]"):
    return np.sum((A @ W) ** 2)
"""


@pytest.mark.parametrize(("source", "params", "subs"), [
    (BATCHED, [arr("A", 2, 3, 4), arr("B", 2, 4, 5)], "amn,ank->amk"),
    (BATCHED_VECTOR, [arr("A", 2, 3, 4), arr("x", 4)], "amn,n->am"),
    (VECTOR_BATCHED, [arr("x", 3), arr("B", 2, 3, 4)], "n,ank->ak"),
    (BATCHED_MATRIX, [arr("A", 2, 3, 2, 4), arr("W", 4, 3)], "abmn,nk->abmk"),
], ids=["stacks", "stack_vector", "vector_stack", "stacks_matrix"])
@pytest.mark.parametrize("target", ["py", "numba"])
def test_batched_matrix_products(source, params, subs, target):
    text = pipeline.gradient_source(source, "prog.py", "f", [p.name for p in params], target)
    assert subs in text or target == "numba"
    check_source(source, [p.name for p in params], params, target=target)


def test_stacks_of_one_matrix_are_not_stretched_but_refused():
    """NumPy's matmul stretches a batch axis of extent 1; the adjoint added into the shadow of the
    shorter stack would not undo it (Numba's in-place addition would even add the wrong part)."""
    import numpy as np

    text = pipeline.gradient_source(BATCHED, "prog.py", "f", ["A", "B"], "py")
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    A, B = np.ones((1, 3, 4)), np.ones((2, 4, 5))
    with pytest.raises(ValueError, match="stacks of matrices multiplied must be as many"):
        namespace["grad_f"](A, np.zeros_like(A), B, np.zeros_like(B))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_batched_matrix_products_in_c_output_match_python():
    import ctypes

    import numpy as np
    from cbuild import build

    py_text = pipeline.gradient_source(BATCHED, "prog.py", "f", ["A", "B"], "py")
    c_text = pipeline.gradient_source(BATCHED, "prog.py", "f", ["A", "B"], "c")
    rng = np.random.default_rng(4)
    A, B = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 5))
    namespace: dict = {}
    exec(compile(py_text, "<grad>", "exec"), namespace)
    want_A, want_B = np.zeros_like(A), np.zeros_like(B)
    namespace["grad_f"](A, want_A, B, want_B, 0.7)
    got_A, got_B = np.zeros_like(A), np.zeros_like(B)
    fn = build(c_text).grad_f
    pointer = np.ctypeslib.ndpointer
    fn.argtypes = [pointer(np.float64)] * 4 + [ctypes.c_long] * 4 + [ctypes.c_double]
    fn(A, got_A, B, got_B, 2, 3, 4, 5, 0.7)
    np.testing.assert_allclose(got_A, want_A, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got_B, want_B, rtol=1e-12, atol=1e-14)


FORWARD_SUBSTITUTION = HEADER + """
def f(x, y):
    n = len(x)
    z = np.zeros(n)
    for i in range(n):
        z[i] = y[i] - np.dot(x[:i], z[:i])
    return np.dot(z, z)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_an_element_beside_a_dot_product_is_an_element(target):
    """``y[i] - np.dot(x[:i], z[:i])``: two lower-case parts make a dot product, a number, so
    ``y[i]`` is an element and ``y`` a vector (probe p60: ``y`` was taken for a matrix, and the
    store of the row it gave into ``z[i]`` was refused)."""
    fn = parse_source(FORWARD_SUBSTITUTION, "prog.py", "f").functions["f"]
    assert [str(p.type) for p in fn.params] == ["array<f64,1>", "array<f64,1>"]
    check_source(FORWARD_SUBSTITUTION, ["x", "y"], [arr("x", 5), arr("y", 5)], target=target)


FORWARD_SUBSTITUTION_MATRIX = HEADER + """
def f(L, y):
    n = len(y)
    z = np.zeros(n)
    for i in range(n):
        z[i] = (y[i] - np.dot(L[i, :i], z[:i])) / L[i, i]
    return np.dot(z, z)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_an_element_beside_a_row_part_dot_product_is_an_element(target):
    """``np.dot(L[i, :i], z[:i])``: a row part of the matrix ``L`` (one of its two axes taken by an
    index) and a part of ``z`` are two vectors, so ``y[i]`` beside their product is an element
    (probe p60, a hand-written triangular solve)."""
    fn = parse_source(FORWARD_SUBSTITUTION_MATRIX, "prog.py", "f").functions["f"]
    assert [str(p.type) for p in fn.params] == ["array<f64,2>", "array<f64,1>"]
    check_source(FORWARD_SUBSTITUTION_MATRIX, ["L", "y"],
                 [ParamSpec("L", "array", (4, 4), low=1.0, high=2.0), arr("y", 4)], target=target)


CAPITAL_LOCAL = HEADER + """
def f(C, v, eps=0.5):
    K = np.exp(-C / eps)
    return np.sum(K @ v)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_capitalized_local_made_elementwise_from_a_parameter_passes_its_guess_on(target):
    """``K = np.exp(-C / eps)``, then ``K @ v``: ``K`` reads as a matrix, and so is ``C``, the one
    parameter (not the defaulted number ``eps``) it is computed from (probe p79, a Sinkhorn
    iteration: ``C`` was guessed a vector, and the gradient refused the matrix at entry)."""
    fn = parse_source(CAPITAL_LOCAL, "prog.py", "f").functions["f"]
    assert [str(p.type) for p in fn.params] == ["array<f64,2>", "array<f64,1>", "f64"]
    check_source(CAPITAL_LOCAL, ["C", "v"], [arr("C", 3, 4), arr("v", 4)], target=target)


NEW_AXIS = HEADER + '''def f(V: "f64[n, p]", w):
    sw = np.sqrt(w)
    return np.sum((V * sw[:, None]) ** 2)
'''


def test_a_new_axis_shows_the_axes_beside_it():
    """``sw[:, None]``: ``sw`` has the axis the slice keeps, so ``w`` is a vector (it was a number,
    and ``'sw' is not an array`` refused a weighted least squares; Python probe round 6)."""
    assert types(NEW_AXIS)["w"] == "array<f64,1>"
    for target in ("py", "numba"):
        check_source(NEW_AXIS, ["V", "w"], [arr("V", 4, 3), ParamSpec("w", "array", (4,), low=0.5, high=1.5)],
                     target=target)


LAYERS = HEADER + """\
def f(x, Ws, bs):
    h = x
    for W, b in zip(Ws, bs):
        h = np.tanh(h @ W + b)
    return np.sum(h)
"""


def test_a_loop_over_a_parameter_of_layers_gives_it_its_items_guess_one_axis_more():
    """``for W, b in zip(Ws, bs): h = np.tanh(h @ W + b)``: W takes a product's guess (a matrix),
    so Ws is a stack of them (3 axes; the entry gradient checks it, and a list of layers of
    unequal shapes fails there as NumPy's asarray does). It was refused: 'h' is an array, but
    this value is a float (W had been taken for a number)."""
    got = types(LAYERS)
    assert got["Ws"] == "array<f64,3>" and got["x"] == V, got
    check_source(LAYERS, ["x", "Ws", "bs"], [arr("x", 3), arr("Ws", 2, 3, 3), arr("bs", 2)], target="py")
