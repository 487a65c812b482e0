"""Unannotated NumPy parameters: ranks from uses (parse/py_rank_uses) and shape-generic
parameters (adjoint/shape_generic).

A parameter's least rank follows from how values computed from it are used (``d = X[i] - X[j];
np.dot(d, d)`` makes ``X`` a matrix). A float parameter that only meets arrays in broadcasting
arithmetic (``W @ x + b``) is a number or an array of any shape that broadcasts there: the Python
gradient serves every such shape, its adjoint summed down to the parameter's shape and added
into a shadow array of that shape (a 0-d array for a number). Every gradient here is checked
against central differences.
"""

from __future__ import annotations

import functools
import textwrap

import numpy as np
import pytest
from fd import ParamSpec, central_difference, check_gradient

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.pipeline import parse_source

HEADER = "import math\n\nimport numpy as np\n\n\n"


def _source(body: str) -> str:
    return HEADER + textwrap.dedent(body)


def gradient(body: str, func: str, wrt: list[str], target: str = "py"):
    return _gradient(body, func, tuple(wrt), target)


@functools.lru_cache(maxsize=None)
def _gradient(body: str, func: str, wrt: tuple[str, ...], target: str):
    """Made once per test session (Numba then compiles it once per kind of argument)."""
    if target == "numba":
        pytest.importorskip("numba")
    text = pipeline.gradient_source(_source(body), "prog.py", func, list(wrt), target)
    namespace: dict = {}
    exec(compile(text, f"<grad_{func}>", "exec"), namespace)
    return namespace[f"grad_{func}"], text


# Python and Numba output serve the same shapes (Numba compiles the gradient for each kind of
# argument; its sum_to_shape adds an element at a time).
TARGETS = pytest.mark.parametrize("out", ["py", "numba"])


def primal(body: str, func: str):
    namespace: dict = {}
    exec(compile(_source(body), "<primal>", "exec"), namespace)
    return namespace[func]


def param_types(body: str, func: str) -> dict[str, str]:
    fn = parse_source(_source(body), "prog.py", func).functions[func]
    return {p.name_hint: str(p.type) for p in fn.params}


# ------------------------------------------------------------------ ranks from uses
PAIRS = """
def pairs(X):
    total = 0.0
    for i in range(len(X)):
        for j in range(i + 1, len(X)):
            d = X[i] - X[j]
            total += np.sqrt(np.dot(d, d) + 1e-6)
    return total
"""

ROWS = """
def rows(A):
    return np.sum(np.sum(A, axis=1) ** 2)
"""

ITEMS = """
def items(E, idx):
    s = 0.0
    for i in idx:
        s += np.sum(E[i] ** 2)
    return s
"""

SQUARES = """
def squares(v, m):
    return 0.5 * np.sum(m * np.sum(v * v, axis=1))
"""

COMPONENTS = """
def components(pos):
    e = 0.0
    for i in range(len(pos)):
        for j in range(i + 1, len(pos)):
            d = pos[i] - pos[j]
            e += 1.0 / (d[0] ** 2 + d[1] ** 2 + 1.5)
    return e
"""


# C - X[i] summed along axis 1: the centres C are the matrix, X[i] one of X's rows (a guess, checked)
CENTRES = """
def distortion(X, C, beta):
    total = 0.0
    for i in range(X.shape[0]):
        d = np.sum((C - X[i]) ** 2, axis=1)
        w = np.exp(-beta * d)
        total += np.sum(w * d) / np.sum(w)
    return total
"""

# np.cumsum takes an array: the product r @ w is a vector, so r a matrix (probe round 10: 'p is
# not an array', with a hint about indexing)
EQUITY = """
def equity(r, w):
    p = r @ w
    e = np.cumsum(p)
    return np.sum(np.sqrt((e[1:] - e[:-1]) ** 2 + 1e-3)) - e[-1]
"""


@pytest.mark.parametrize(("body", "func", "param"), [
    (PAIRS, "pairs", "X"),  # an item of X is an array (np.dot of d, d = X[i] - X[j])
    (CENTRES, "distortion", "C"),
    (CENTRES, "distortion", "X"),
    (ROWS, "rows", "A"),  # np.sum(A, axis=1): A has an axis 1
    (ITEMS, "items", "E"),  # E[i] with i an item of an integer array... a row, summed
    (SQUARES, "squares", "v"),  # v * v has an axis 1, and v is its only operand
    (COMPONENTS, "components", "pos"),  # d[0] of d = pos[i] - pos[j]
    (EQUITY, "equity", "r"),  # np.cumsum(r @ w)
], ids=["dot_of_rows", "centres", "rows_of_points", "axis_1", "rows_of_items", "elementwise_axis",
        "components_of_rows", "cumulative_sum"])
def test_the_uses_give_a_matrix(body, func, param):
    assert param_types(body, func)[param] == "array<f64,2>"


@pytest.mark.parametrize(("x", "mu"), [(np.array([0.5, -0.4, 1.2]), 0.3), (0.7, np.array([0.1, -0.2, 0.4])),
                                       (np.arange(6.0).reshape(2, 3) / 4, np.array([[0.1], [0.3]])), (0.2, 0.9)],
                         ids=["vector_number", "number_vector", "matrix_column", "numbers"])
def test_where_either_operand_may_be_the_array_both_are_shape_generic(x, mu):
    """``np.sum((x - mu) ** 2)``: either may be the array, and nothing says which. The first
    parameter is typed the array (a guess), but np.sum of an elementwise expression means the
    same at every rank: both are shape-generic, each a number or an array of any shape that
    broadcasts, its adjoint summed down to its own shape and added into its shadow (0-d for a
    number). Before, x was checked to be an array and a number there was refused."""
    body = """
    def f(x, mu):
        return np.sum((x - mu) ** 2)
    """
    assert param_types(body, "f") == {"x": "array<f64,1>", "mu": "f64"}
    grad, text = gradient(body, "f", ["x", "mu"])
    assert "isinstance(x, np.ndarray)" not in text and "def grad_f(x, d_x, mu, d_mu, d_return=1.0)" in text
    assert "d_x must be an array of the shape of x" in text
    f = primal(body, "f")
    d_x, d_mu = np.zeros(np.shape(x)), np.zeros(np.shape(mu))
    grad(x, d_x, mu, d_mu, d_return=1.0)
    np.testing.assert_allclose(d_x, central_difference(f, [x, mu], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_mu, central_difference(f, [x, mu], 1), rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="d_x must be an array of the shape of x"):
        grad(x, 0.0, mu, d_mu)  # a float shadow cannot be added into


def test_a_known_array_among_the_operands_decides_nothing():
    """``x[0]`` makes ``x`` the array: ``mu`` is not taken for one."""
    body = """
    def f(mu, x):
        return np.sum((mu - x) ** 2) + x[0]
    """
    assert param_types(body, "f") == {"mu": "f64", "x": "array<f64,1>"}


MSE = """
def mse(pred, target):
    return np.mean((pred - target) ** 2)
"""

NLL = """
def nll(x, mu, log_sigma):
    sigma = np.exp(log_sigma)
    return np.sum(np.log(sigma) + 0.5 * ((x - mu) / sigma) ** 2)
"""


@pytest.mark.parametrize("target", [0.3, np.array([0.1, -0.2, 0.3, 0.5])], ids=["number", "vector"])
@TARGETS
def test_the_other_operand_may_be_a_number_or_an_array(target, out):
    grad, _ = gradient(MSE, "mse", ["pred", "target"], out)
    f = primal(MSE, "mse")
    pred = np.array([0.4, -0.1, 0.9, 0.2])
    d_pred, d_target = np.zeros(4), np.zeros(np.shape(target))
    grad(pred, d_pred, target, d_target, d_return=1.0)
    np.testing.assert_allclose(d_pred, central_difference(f, [pred, target], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_target, central_difference(f, [pred, target], 1), rtol=1e-6, atol=1e-8)


def test_the_guess_is_checked():
    grad, _ = gradient(MSE, "mse", ["pred", "target"])
    with pytest.raises(ValueError, match=r'pred must be a 1-D array: its rank is not evident in mse'):
        grad(0.5, np.zeros(()), np.ones(3), np.zeros(3))


@pytest.mark.parametrize("mu", [0.2, np.array([0.1, 0.0, -0.3, 0.4, 0.2])], ids=["mu_number", "mu_vector"])
@pytest.mark.parametrize("log_sigma", [0.3, np.array([0.1, -0.2, 0.3, 0.0, 0.25])],
                         ids=["log_sigma_number", "log_sigma_vector"])
@TARGETS
def test_nested_ambiguities_take_the_first_parameter_each_time(mu, log_sigma, out):
    """``np.log(sigma) + 0.5 * ((x - mu) / sigma) ** 2``: x, mu and log_sigma (through sigma)
    could each be the array; x is. mu and log_sigma only meet arrays in broadcasting arithmetic
    and np.exp/np.log (whose adjoints are arithmetic): each may be a number or a vector."""
    assert param_types(NLL, "nll") == {"x": "array<f64,1>", "mu": "f64", "log_sigma": "f64"}
    grad, text = gradient(NLL, "nll", ["x", "mu", "log_sigma"], out)
    assert "def grad_nll(x, d_x, mu, d_mu, log_sigma, d_log_sigma, d_return=1.0)" in text
    f = primal(NLL, "nll")
    x = np.array([0.5, -0.4, 1.2, 0.3, -0.8])
    d_x, d_mu, d_log_sigma = np.zeros(5), np.zeros(np.shape(mu)), np.zeros(np.shape(log_sigma))
    grad(x, d_x, mu, d_mu, log_sigma, d_log_sigma, d_return=1.0)
    args = [x, mu, log_sigma]
    for k, got in enumerate((d_x, d_mu, d_log_sigma)):
        np.testing.assert_allclose(got, central_difference(f, args, k), rtol=1e-6, atol=1e-8)


WEIGHTED = """
def weighted_variance(x, w):
    m = np.sum(w * x) / np.sum(w)
    return np.sum(w * (x - m) ** 2) / np.sum(w)
"""


@pytest.mark.parametrize("x", [0.4, np.array([0.5, -0.4, 1.2, 0.3])], ids=["number", "vector"])
@TARGETS
def test_a_number_computed_elsewhere_gets_its_share_summed(x, out):
    """``x - m``: m is a number computed from x and w, x may be an array: m's contribution has
    x's shape and is summed to a number (``rules.NUMBER_OPERANDS``), x stays shape-generic."""
    grad, text = gradient(WEIGHTED, "weighted_variance", ["x", "w"], out)
    assert "sum_to_shape(-" in text and "np.shape(m)" in text
    f = primal(WEIGHTED, "weighted_variance")
    w = np.array([0.7, 1.2, 0.9, 1.4])
    d_x, d_w = np.zeros(np.shape(x)), np.zeros(4)
    grad(x, d_x, w, d_w, d_return=1.0)
    np.testing.assert_allclose(d_x, central_difference(f, [x, w], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_w, central_difference(f, [x, w], 1), rtol=1e-6, atol=1e-8)


MIXTURE_LOOP = """
def gmm_loglik_manual(x, means, log_sigmas, logits):
    log_w = logits - np.log(np.sum(np.exp(logits)))
    total = 0.0
    for xi in x:
        lp = log_w - 0.5 * ((xi - means) / np.exp(log_sigmas)) ** 2 - log_sigmas - 0.5 * math.log(2 * math.pi)
        m = np.max(lp)
        total += m + np.log(np.sum(np.exp(lp - m)))
    return total
"""


def test_a_value_of_a_shape_generic_parameter_is_never_taped_as_a_number():
    """probe gmm_loglik_manual: ``((xi - means) / s) ** 2`` in a loop, ``means`` shape-generic,
    meets the array ``log_w``; the cut kept the power (costly to compute again) on a tape of
    numbers, and the gradient failed storing the array there. Such a value is computed again."""
    grad, text = gradient("import math\n" + MIXTURE_LOOP, "gmm_loglik_manual", ["means", "log_sigmas", "logits"])
    f = primal("import math\n" + MIXTURE_LOOP, "gmm_loglik_manual")
    rng = np.random.default_rng(5)
    args = [rng.normal(size=6), rng.normal(size=3), 0.2 * rng.normal(size=3), rng.normal(size=3)]
    shadows = [np.zeros(3) for _ in range(3)]
    grad(args[0], args[1], shadows[0], args[2], shadows[1], args[3], shadows[2], d_return=1.0)
    for k, d in enumerate(shadows, start=1):
        np.testing.assert_allclose(d, central_difference(f, args, k), rtol=1e-6, atol=1e-8)


TWO_GENERIC = """
def two(X: "f64[m, n]", b, s):
    return np.sum(np.tanh(X * (b * s) + np.sqrt(s * s + 1.0)))
"""


@pytest.mark.parametrize(("b", "s"), [(0.3, 0.7), (np.array([0.1, -0.2, 0.3]), 0.5),
                                      (0.4, np.array([[0.2], [0.6]])),
                                      (np.array([0.1, -0.2, 0.3]), np.array([[0.2], [0.6]]))],
                         ids=["numbers", "vector_number", "number_column", "vector_column"])
@TARGETS
def test_two_shape_generic_parameters_meet_each_other(b, s, out):
    """``b * s``: each a number or an array of another shape; each one's contribution, shaped
    like the product, is summed to its own run-time shape."""
    grad, _ = gradient(TWO_GENERIC, "two", ["b", "s"], out)
    f = primal(TWO_GENERIC, "two")
    X = np.random.default_rng(3).normal(size=(2, 3))
    d_b, d_s = np.zeros(np.shape(b)), np.zeros(np.shape(s))
    grad(X, b, d_b, s, d_s, d_return=1.0)
    np.testing.assert_allclose(d_b, central_difference(f, [X, b, s], 1), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_s, central_difference(f, [X, b, s], 2), rtol=1e-6, atol=1e-8)


def test_a_reduced_value_that_reaches_max_proves_nothing_of_its_operands():
    """``max(np.sum((a - p) ** 2) + margin, 0.0)``: np.sum's value is a number whatever p is, so
    max proves nothing of p. It was taken for a proven number, unchecked, and called with an
    array its adjoint came back summed to one number (a wrong gradient); p is shape-generic now."""
    body = """
    def f(a: "f64[n]", p, margin):
        return max(np.sum((a - p) ** 2) + margin, 0.0)
    """
    grad, text = gradient(body, "f", ["a", "p"])
    assert "def grad_f(a, d_a, p, d_p, margin, d_return=1.0)" in text
    f = primal(body, "f")
    a, margin = np.array([1.0, 2.0, 3.0]), 1.0
    for p in (0.4, np.array([0.5, 0.1, 0.2])):
        d_a, d_p = np.zeros(3), np.zeros(np.shape(p))
        grad(a, d_a, p, d_p, margin, d_return=1.0)
        np.testing.assert_allclose(d_a, central_difference(f, [a, p, margin], 0), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(d_p, central_difference(f, [a, p, margin], 1), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(("body", "func", "params", "wrt"), [
    (PAIRS, "pairs", [ParamSpec("X", "array", (4, 3))], ["X"]),
    (ROWS, "rows", [ParamSpec("A", "array", (3, 4))], ["A"]),
    (ITEMS, "items", [ParamSpec("E", "array", (5, 3)), ParamSpec("idx", "array", (4,), dtype="i64", ints=(0, 5))],
     ["E"]),
    (COMPONENTS, "components", [ParamSpec("pos", "array", (4, 2))], ["pos"]),
    (CENTRES, "distortion", [ParamSpec("X", "array", (4, 2)), ParamSpec("C", "array", (3, 2)),
                             ParamSpec("beta", "float")], ["X", "C", "beta"]),
    (EQUITY, "equity", [ParamSpec("r", "array", (5, 3)), ParamSpec("w", "array", (3,))], ["r", "w"]),
], ids=["dot_of_rows", "axis_1", "rows_of_items", "components_of_rows", "centres", "cumulative_sum"])
def test_gradients_with_ranks_from_uses_match_central_differences(body, func, params, wrt):
    grad, _ = gradient(body, func, wrt)
    for seed in range(2):
        check_gradient(primal(body, func), grad, params, wrt, set(), np.random.default_rng(seed))


def test_a_least_rank_is_still_checked():
    """``X[i] - X[j]`` is a vector for a matrix and a matrix for a 3-D array: rank 2 is the least
    the uses allow, not a proof, and the gradient checks it."""
    grad, text = gradient(PAIRS, "pairs", ["X"])
    assert "np.ndim(X) != 2" in text
    X = np.ones((2, 2, 2))
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        grad(X, np.zeros_like(X))


# ------------------------------------------------------------------ shape-generic parameters
FIT = """
def fit(X: "f64[m, n]", w: "f64[n]", b):
    return np.sum(np.tanh(X @ w + b) ** 2)
"""

BIAS = """
def bias(X: "f64[m, n]", b):
    return np.sum((X - b) ** 2 * X)
"""


@pytest.mark.parametrize("b", [0.3, np.linspace(-0.5, 0.5, 3), np.full((1,), 0.2)],
                         ids=["number", "vector", "size_1"])
@TARGETS
def test_a_bias_of_any_broadcasting_shape(b, out):
    grad, text = gradient(FIT, "fit", ["w", "b"], out)
    assert "sum_to_shape(" in text and "return d_b" not in text and "d_b += " in text
    rng = np.random.default_rng(0)
    X, w = rng.normal(size=(3, 4)), rng.normal(size=4)
    f = primal(FIT, "fit")
    d_w, d_b = np.zeros(4), np.zeros(np.shape(b))
    assert grad(X, w, d_w, b, d_b, d_return=1.0) is None
    np.testing.assert_allclose(d_w, central_difference(f, [X, w, b], 1), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_b, central_difference(f, [X, w, b], 2), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("b", [-0.4, np.array([0.1, -0.2, 0.3, 0.0]), np.arange(12.0).reshape(3, 4) / 10,
                               np.array([[0.1], [0.2], [-0.3]])],
                         ids=["number", "vector", "matrix", "column"])
@TARGETS
def test_a_parameter_called_with_a_number_a_vector_and_a_matrix(b, out):
    """The same gradient, right for each shape ``X - b`` accepts (against central differences)."""
    grad, _ = gradient(BIAS, "bias", ["X", "b"], out)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3, 4))
    f = primal(BIAS, "bias")
    d_X, d_b = np.zeros((3, 4)), np.zeros(np.shape(b))
    grad(X, d_X, b, d_b, d_return=1.0)
    np.testing.assert_allclose(d_X, central_difference(f, [X, b], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_b, central_difference(f, [X, b], 1), rtol=1e-6, atol=1e-8)


@TARGETS
def test_the_entry_checks_refuse_more_axes_and_a_wrong_shadow(out):
    grad, _ = gradient(BIAS, "bias", ["X", "b"], out)
    X = np.ones((3, 4))
    b = np.ones((2, 3, 4))
    with pytest.raises(ValueError, match="b may be a number or an array of up to 2 axes in bias" +
                       (", not 3" if out == "py" else "")):
        grad(X, np.zeros_like(X), b, np.zeros_like(b))
    with pytest.raises(ValueError, match=r"d_b must be an array of the shape of b"):
        grad(X, np.zeros_like(X), 0.5, 0.0)  # a float shadow cannot be added into
    with pytest.raises(ValueError, match=r"d_b must be an array of the shape of b"):
        grad(X, np.zeros_like(X), np.ones(4), np.zeros(3))


def test_arithmetic_on_the_parameter_first():
    """``(1 - y) * np.log(1 - p)``: values computed from ``y`` with constants are shape-generic too."""
    body = """
    def bce(p: "f64[n]", y):
        return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))
    """
    grad, text = gradient(body, "bce", ["p", "y"])
    assert "np.ndim(y) != 0" not in text
    f = primal(body, "bce")
    p = np.array([0.2, 0.5, 0.7])
    for y in (0.3, np.array([0.0, 1.0, 0.5])):
        d_p, d_y = np.zeros(3), np.zeros(np.shape(y))
        grad(p, d_p, y, d_y)
        np.testing.assert_allclose(d_p, central_difference(f, [p, y], 0), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(d_y, central_difference(f, [p, y], 1), rtol=1e-6, atol=1e-8)


def test_an_inactive_shape_generic_parameter_takes_no_shadow():
    body = """
    def loss(w: "f64[n]", y):
        return np.sum((w - y) ** 2)
    """
    grad, text = gradient(body, "loss", ["w"])
    assert "def grad_loss(w, d_w, y, d_return=1.0):" in text
    for y in (0.5, np.array([1.0, 2.0, 3.0])):
        params = [ParamSpec("w", "array", (3,))]
        w = np.array([0.1, 0.2, 0.3])
        d_w = np.zeros(3)
        grad(w, d_w, y)
        np.testing.assert_allclose(d_w, 2 * (w - y))
        del params


@pytest.mark.parametrize("b", [0.4, np.array([0.3, -0.2, 0.5])], ids=["number", "vector"])
def test_a_returned_product_with_an_active_number(b):
    """``return b * np.sum(x * b)``: the result has b's shape (the seed d_return takes it), and
    the share of the number np.sum(x * b), shaped like b, is summed to a number."""
    body = """
    def f(x: "f64[n]", b):
        return b * np.sum(x * b)
    """
    grad, _ = gradient(body, "f", ["x", "b"])
    f = primal(body, "f")
    x = np.array([0.5, -1.0, 2.0])
    seed = np.ones(np.shape(b)) * 0.7
    d_x, d_b = np.zeros(3), np.zeros(np.shape(b))
    grad(x, d_x, b, d_b, d_return=seed)

    def J(x, b):
        return float(np.sum(seed * f(x, b)))

    np.testing.assert_allclose(d_x, central_difference(J, [x, b], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_b, central_difference(J, [x, b], 1), rtol=1e-6, atol=1e-8)


def test_numba_serves_the_shapes_and_c_keeps_the_number_checked():
    _, numba = gradient(FIT, "fit", ["w", "b"], "numba")
    assert 'hasattr(b, "ndim") and b.ndim > 1' in numba
    assert "d_b2 = sum_to_shape(t2, np.shape(b), np.shape(t0))" in numba
    with pytest.raises(DiagnosticError, match="the kind of parameter 'b' is not evident"):
        pipeline.gradient_source(_source(FIT), "prog.py", "fit", ["w", "b"], "c")


@TARGETS
def test_a_shape_that_grows_the_arrays_it_meets_is_refused(out):
    """``np.mean((y - mu) ** 2)`` with y of shape (1,) and mu of shape (5,): mu has no more axes
    than y, but the result is bigger than y, and the gradient, which takes the result to have
    y's shape, divided by 1 instead of 5 (a wrong d_mu). The share of mu is summed only where its
    shape broadcasts into the arrays it meets; elsewhere the gradient refuses the call."""
    body = """
    def f(y: "f64[n]", mu):
        return np.mean((y - mu) ** 2)
    """
    grad, _ = gradient(body, "f", ["mu"], out)
    grows = r"shape \(5,\) grows the arrays it meets, \(1,\)" if out == "py" else "grows the arrays it meets"
    with pytest.raises(ValueError, match=grows):
        grad(np.array([0.3]), np.linspace(-1.0, 1.0, 5), np.zeros(5))
    f = primal(body, "f")
    y = np.linspace(0.0, 1.0, 5)
    for mu in (0.3, np.linspace(-1.0, 1.0, 5), np.array([0.2])):
        d_mu = np.zeros(np.shape(mu))
        grad(y, mu, d_mu, d_return=1.0)
        np.testing.assert_allclose(d_mu, central_difference(f, [y, mu], 1), rtol=1e-6, atol=1e-8)


CLIPPED = """
def clipped(r, delta):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r**2, delta * (a - 0.5 * delta)))
"""

FOCAL = """
def focal(p, y, gamma):
    pt = np.where(y == 1, p, 1 - p)
    return -np.sum((1 - pt) ** gamma * np.log(pt))
"""


def test_np_where_needs_its_condition_as_an_array():
    """``np.sum(np.where(a <= delta, ...))``: s2sad takes np.where's condition as an array only,
    so the need reaches the comparison, where r (through a = np.abs(r)), the first parameter, is
    taken for the array; delta, compared, stays a checked number."""
    assert param_types(CLIPPED, "clipped") == {"r": "array<f64,1>", "delta": "f64"}
    grad, text = gradient(CLIPPED, "clipped", ["r", "delta"])
    assert "np.ndim(delta) != 0" in text
    for seed in range(2):
        check_gradient(primal(CLIPPED, "clipped"), grad, [ParamSpec("r", "array", (6,), low=-2.0, high=2.0),
                                                         ParamSpec("delta", "float", low=0.5, high=1.0)],
                       ["r", "delta"], set(), np.random.default_rng(seed))


@pytest.mark.parametrize("p", [np.array([0.3, 0.6, 0.4, 0.7]), 0.45], ids=["vector", "number"])
def test_a_power_with_a_parameter_exponent_passes_the_need(p):
    """``(1 - pt) ** gamma * np.log(pt)``: the need passes the power to its base and exponent
    (either may be the array); pt is np.where(y == 1, p, 1 - p), whose condition makes y the
    array; p only meets arrays in np.where and arithmetic (shape-generic), and gamma, an exponent
    (whose adjoint branches on it), stays a checked number."""
    assert param_types(FOCAL, "focal")["y"] == "array<f64,1>"
    grad, text = gradient(FOCAL, "focal", ["p", "gamma"])
    assert "np.ndim(gamma) != 0" in text and "def grad_focal(p, d_p, y, gamma, d_return=1.0)" in text
    f = primal(FOCAL, "focal")
    y, gamma = np.array([1.0, 0.0, 1.0, 0.0]), 1.5
    d_p = np.zeros(np.shape(p))
    d_gamma = grad(p, d_p, y, gamma, d_return=1.0)
    np.testing.assert_allclose(d_p, central_difference(f, [p, y, gamma], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_gamma, central_difference(f, [p, y, gamma], 2), rtol=1e-6, atol=1e-8)


def test_a_result_a_shape_generic_parameter_meets_has_its_own_extents():
    """``np.mean((y - mu) * a)`` with y of shape (1,) and mu, not differentiated, of shape (5,):
    the mean averages 5 values, not y's 1 (the gradient took its extent from y: d_a five times too
    big). Nothing checks mu's shape where it is not differentiated: the result's extents are
    its own."""
    body = """
    def f(y: "f64[n]", mu, a):
        return np.mean((y - mu) * a)
    """
    grad, _ = gradient(body, "f", ["a"])
    f = primal(body, "f")
    for y, mu in ((np.array([0.3]), np.linspace(-1.0, 1.0, 5)), (np.linspace(0.0, 1.0, 5), 0.2)):
        d_a = np.zeros(())
        grad(y, mu, 0.7, d_a, d_return=1.0)
        np.testing.assert_allclose(d_a, central_difference(f, [y, mu, 0.7], 2), rtol=1e-6, atol=1e-8)


GROWTH = """
def growth(r, K, P0, t):
    return K / (1 + ((K - P0) / P0) * np.exp(-r * t))
"""


@pytest.mark.parametrize("t", [1.5, np.array([0.0, 0.5, 1.0, 2.0])], ids=["number", "vector"])
@pytest.mark.parametrize("K", [7.0, np.array([6.0, 7.0, 8.0, 9.0])], ids=["K_number", "K_vector"])
def test_a_function_that_maps_any_shape(t, K):
    """No array in sight: every parameter only meets the others in arithmetic and np.exp, and the
    result is returned, so each may be a number or an array (the result takes their broadcast
    shape, and so does the seed d_return); K, whose value meets np.exp's only through arithmetic,
    may be an array too, and each share is summed to its parameter's shape."""
    grad, _ = gradient(GROWTH, "growth", ["r", "K", "P0", "t"])
    f = primal(GROWTH, "growth")
    args = [0.5, K, 1.5, t]
    seed = np.ones(np.broadcast_shapes(np.shape(K), np.shape(t))) * 0.9
    shadows = [np.zeros(np.shape(a)) for a in args]
    grad(args[0], shadows[0], args[1], shadows[1], args[2], shadows[2], args[3], shadows[3], d_return=seed)

    def J(*values):
        return float(np.sum(seed * f(*values)))

    for k in range(4):
        np.testing.assert_allclose(shadows[k], central_difference(J, args, k), rtol=1e-5, atol=1e-7)


NEAREST = """
def nearest(P, Q):
    total = 0.0
    for p in P:
        gaps = [np.sum((p - q) ** 2) for q in Q]
        total += min(gaps)
    return total
"""


def test_items_of_two_sequences_combined_elementwise_are_alike():
    """``p - q`` with p an item of P (a loop) and q one of Q (a comprehension): np.sum needs an
    array, and two items of sequences are taken to be alike, so both P and Q are matrices (a
    guess, checked at entry), where the first-parameter rule would have made only P one."""
    assert param_types(NEAREST, "nearest") == {"P": "array<f64,2>", "Q": "array<f64,2>"}
    grad, text = gradient(NEAREST, "nearest", ["P", "Q"])
    assert "np.ndim(P) != 2" in text and "np.ndim(Q) != 2" in text
    for seed in range(2):
        check_gradient(primal(NEAREST, "nearest"), grad, [ParamSpec("P", "array", (4, 2)),
                                                         ParamSpec("Q", "array", (3, 2))],
                       ["P", "Q"], set(), np.random.default_rng(seed))


POISSON = """
from scipy.special import gammaln


def poisson_nll(log_lam: "f64[n]", k, c):
    return -np.sum(k * log_lam - np.exp(log_lam) - gammaln(k + 1) - np.sin(c * k))
"""


@pytest.mark.parametrize("k", [2.0, np.array([0.0, 3.0, 1.0, 4.0])], ids=["number", "vector"])
def test_data_through_any_ufunc_stays_shape_generic(k):
    """``gammaln(k + 1)``, ``np.sin(c * k)`` of data ``k`` (not differentiated): no adjoint reaches
    those values, so any function with an array spelling maps them (the output calls
    scipy.special's gammaln and NumPy's sin); ``k`` was refused an array at run time (probe
    poisson_nll: its rank was guessed a number)."""
    grad, text = gradient(POISSON, "poisson_nll", ["log_lam"])
    assert "from scipy.special import gammaln" in text and "gammaln(k + 1.0)" in text
    assert "np.sin(c * k)" in text and "k must be a number" not in text
    f = primal(POISSON, "poisson_nll")
    log_lam = np.array([0.3, -0.2, 0.5, 0.1])
    d_log_lam = np.zeros(4)
    grad(log_lam, d_log_lam, k, 0.7, d_return=1.0)
    np.testing.assert_allclose(d_log_lam, central_difference(f, [log_lam, k, 0.7], 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("r", [2.3, np.array([1.5, 2.5, 3.5]), np.array([[1.5], [2.5]])],
                         ids=["number", "vector", "column"])
def test_an_active_value_meets_the_array_before_a_function_of_no_arithmetic_adjoint(r):
    """``gammaln(k + r)`` with ``r`` differentiated: ``r`` meets the array ``k`` first, and the
    digamma of the adjoint is taken of that array, whatever ``r`` is: ``r`` is shape-generic up
    to ``k``'s one axis (its contribution summed to its shape). A column would grow ``k + r``
    beyond what the gradient takes it to be: refused at entry."""
    body = """
    from scipy.special import gammaln


    def nb(r, k: "f64[n]"):
        return np.sum(gammaln(k + r))
    """
    grad, text = gradient(body, "nb", ["r"])
    assert "r may be a number or an array of up to 1 axis" in text
    f = primal(body, "nb")
    k = np.array([0.5, 1.0, 2.0])
    d_r = np.zeros(np.shape(r))
    if np.ndim(r) > 1:
        with pytest.raises(ValueError, match="r may be a number or an array of up to 1 axis in nb, not 2"):
            grad(r, d_r, k)
        return
    grad(r, d_r, k)
    np.testing.assert_allclose(d_r, central_difference(f, [r, k], 0), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ guessed arrays, shape-generic too
NEGBIN = """
from scipy.special import gammaln


def negbin(r, p, k):
    return np.sum(gammaln(k + r) - gammaln(r) - gammaln(k + 1) + r * np.log(p) + k * np.log1p(-p))
"""


@pytest.mark.parametrize(("r", "k"), [(2.3, np.array([0.0, 1.0, 4.0, 2.0])), (np.array([1.5, 2.5, 3.5]), 2.0),
                                      (np.array([[1.5], [2.5]]), np.array([0.0, 3.0, 1.0]))],
                         ids=["number_r_vector_k", "vector_r_number_k", "column_r_vector_k"])
def test_a_parameter_taken_for_an_array_serves_a_number_too(r, k):
    """A negative binomial log-likelihood as statistics code writes it: ``r`` (the dispersion) is
    typed the array of ``gammaln(k + r) - gammaln(r)`` (the first parameter where either could
    be), but every use of it, of ``p`` and of ``k`` is elementwise, then summed: all three are
    shape-generic, and the gradient is right for a number ``r`` with data ``k``, and the other way
    round. (Before, ``r`` was checked to be a vector, and a number there refused.)"""
    grad, text = gradient(NEGBIN, "negbin", ["r", "p"])
    assert "must be a 1-D array" not in text and "d_r must be an array of the shape of r" in text
    f = primal(NEGBIN, "negbin")
    p = 0.4
    d_r, d_p = np.zeros(np.shape(r)), np.zeros(())
    grad(r, d_r, p, d_p, k, d_return=1.0)
    np.testing.assert_allclose(d_r, central_difference(f, [r, p, k], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_p, central_difference(f, [r, p, k], 1), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(("a", "b"), [(np.array([[0.3], [-0.2], [0.5]]), np.array([[0.1, 0.4, -0.3, 0.2]])),
                                      (1.5, np.array([0.1, 0.4])), (np.array([0.2, 0.7]), np.array([0.1, 0.4]))],
                         ids=["column_row", "number_vector", "vectors"])
def test_two_guessed_arrays_that_only_meet_each_other(a, b):
    """``s = a + b; np.sum(s * s)``: no array of a known rank anywhere, so any two shapes that
    broadcast are served, each adjoint summed to its parameter's shape."""
    body = """
    def f(a, b):
        s = a + b
        return np.sum(s * s)
    """
    grad, _ = gradient(body, "f", ["a", "b"])
    f = primal(body, "f")
    d_a, d_b = np.zeros(np.shape(a)), np.zeros(np.shape(b))
    grad(a, d_a, b, d_b, d_return=1.0)
    np.testing.assert_allclose(d_a, central_difference(f, [a, b], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_b, central_difference(f, [a, b], 1), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(("x", "centers"), [(0.3, np.array([0.0, 0.5, 1.0])), (np.array([0.1, 0.4, 0.9]), 0.5)],
                         ids=["number_x", "number_centers"])
def test_a_scaled_radial_basis_sum(x, centers):
    """``np.abs(x - centers)`` then ``np.exp`` and a weighted sum (the corpus's rbf_interpolant):
    whichever of x and centers is the array."""
    body = """
    def rbf(x, centers, weights, eps):
        r = np.abs(x - centers)
        return np.sum(weights * np.exp(-((eps * r) ** 2)))
    """
    grad, _ = gradient(body, "rbf", ["x", "centers", "weights", "eps"])
    f = primal(body, "rbf")
    weights, eps = np.array([0.7, -0.2, 1.1]), 1.3
    shadows = [np.zeros(np.shape(v)) for v in (x, centers, weights, eps)]
    grad(x, shadows[0], centers, shadows[1], weights, shadows[2], eps, shadows[3], d_return=1.0)
    for k, got in enumerate(shadows):
        np.testing.assert_allclose(got, central_difference(f, [x, centers, weights, eps], k), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(("body", "checked"), [
    ("def f(x, y):\n    return np.sum(np.sum(x * y, axis=0))\n", "x must be a 2-D array"),  # an axis: rank-bound
    ("def f(x, y):\n    return np.mean(x - y)\n", "x must be a 1-D array"),  # divides by the guessed extents
    ("def f(x, y):\n    return np.sum(np.where(x > 0, x, y))\n", "x must be a 1-D array"),  # a comparison
    ("def f(x, y):\n    return np.sum(x * y) + x[0]\n", "d_y must be an array of the shape of y"),  # x proven
], ids=["axis", "mean", "comparison", "indexed"])
def test_a_guessed_array_with_a_use_of_its_rank_keeps_its_check(body, checked):
    """Only elementwise arithmetic, ufuncs and whole sums, maxima and minima mean the same at every
    rank; a guessed array with any other use keeps its rank check (and the other parameter, once
    the first keeps the IR's rank, may still be shape-generic where it meets it)."""
    _, text = gradient(body, "f", ["x", "y"])
    assert checked in text


def test_a_guessed_array_used_in_a_loop_keeps_its_check():
    """An adjoint accumulated across a loop is allocated by the IR's extents: not shape-generic
    (here of any rank, as the sum takes it, but an array: a number's shadow could not be added into)."""
    body = """
    def f(x, y, n: int):
        s = 0.0
        for i in range(n):
            s += np.sum(x * y) * i
        return s
    """
    _, text = gradient(body, "f", ["x", "y"])
    assert "x must be a NumPy array" in text and "d_x must be an array of the shape of x" not in text


# ------------------------------------------------------------------ axes annotated one long
COL_ROW = """
def col_plus_row(a: "f64[n, 1]", b: "f64[1, m]"):
    return np.sum((a + b) ** 2)


def pair(a: "f64[n, 1]", b: "f64[1, m]"):
    return (a + b) ** 2


def via_helper(a: "f64[n, 1]", b: "f64[1, m]"):
    return np.sum(pair(a, b))
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize("func", ["col_plus_row", "via_helper"])
def test_an_axis_annotated_one_long_sums_what_it_stretched(func, level, target):
    """``a: "f64[n, 1]"`` plus ``b: "f64[1, m]"`` is n by m: the adjoint of each is summed over
    the axis it was stretched along. Before, it was added unsummed (a (3, 4) adjoint into a (3, 1)
    shadow: NumPy refused it). The gradient checks the annotated extents on entry."""
    text = pipeline.gradient_source(_source(COL_ROW), "prog.py", func, ["a", "b"], target,
                                    pipeline.Options(level=level))
    namespace: dict = {}
    exec(compile(text, f"<grad_{func}>", "exec"), namespace)
    grad = namespace[f"grad_{func}"]
    f = primal(COL_ROW, func)
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(3, 1)), rng.normal(size=(1, 4))
    d_a, d_b = np.zeros((3, 1)), np.zeros((1, 4))
    grad(a, d_a, b, d_b, 1.0)
    np.testing.assert_allclose(d_a, central_difference(f, [a, b], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_b, central_difference(f, [a, b], 1), rtol=1e-6, atol=1e-8)
    if target == "py":
        with pytest.raises(ValueError, match=f"a.shape.1. must be 1 in {func}, as its annotation says"):
            grad(np.ones((3, 4)), np.zeros((3, 4)), b, d_b, 1.0)
        with pytest.raises(ValueError, match="a.shape.1. must be 1"):
            grad(np.ones(3), np.zeros(3), b, d_b, 1.0)  # the wrong rank too, without an IndexError


BETA_BINOMIAL = """
import scipy.special as sp


def beta_binomial(a, b, k, n):
    return np.sum(sp.betaln(k + a, n - k + b) - sp.betaln(a, b))
"""


@pytest.mark.parametrize("a", [1.5, np.array([1.5, 0.7, 2.2])], ids=["number", "vector"])
@pytest.mark.parametrize(("k", "n"), [(np.array([1.0, 3.0, 4.0]), np.array([5.0, 6.0, 7.0])), (2.0, 5.0)],
                         ids=["data_arrays", "data_numbers"])
def test_scipy_special_functions_of_two_operands_map_arrays(a, k, n):
    """``sp.betaln(k + a, n - k + b)``: SciPy's special functions map arrays as NumPy's do. Before,
    the parameters were taken for proven numbers (no check at all; called with data arrays the
    gradient failed inside the output's scalar digamma). Now the first is guessed the array and
    shape-generic (its lgamma's adjoint, digamma, is SciPy's ufunc in the output), and so is
    ``b``, whose lgamma's adjoint maps arrays as well (it stayed a checked number before)."""
    grad, text = gradient(BETA_BINOMIAL, "beta_binomial", ["a", "b"])
    assert "from scipy.special import digamma" in text and "b must be a number" not in text
    f = primal(BETA_BINOMIAL, "beta_binomial")
    b = 2.5 if np.ndim(a) else np.array([2.5, 1.1, 0.8])
    d_a, d_b = np.zeros(np.shape(a)), np.zeros(np.shape(b))
    grad(a, d_a, b, d_b, k, n, d_return=1.0)
    np.testing.assert_allclose(d_a, central_difference(f, [a, b, k, n], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_b, central_difference(f, [a, b, k, n], 1), rtol=1e-6, atol=1e-8)


def test_a_parameter_reaching_a_scipy_function_is_never_a_proven_number():
    """``np.sum(sp.xlogy(k, a))``: either may be an array; neither is proven a number."""
    body = """
    import scipy.special as sp


    def f(a, k):
        return np.sum(sp.xlogy(k, a))
    """
    fn = parse_source(_source(body), "prog.py", "f").functions["f"]
    assert set(fn.attrs["assumed"]) == {"a", "k"}


@pytest.mark.parametrize(("body", "x"), [("return np.sum(sp.xlogy(x, s))", np.array([0.0, 0.5, 2.0])),
                                       ("return np.sum(sp.xlogy(s, x))", np.array([0.25, 0.5, 2.0]))],
                         ids=["array_number", "number_array"])
def test_xlogy_of_an_array_and_a_number_stretches_the_number(body, x):
    """``sp.xlogy(x, s)`` with ``x`` an array and ``s`` a number: NumPy broadcasts the number,
    and so does the lowering (it was refused)."""
    source = f"""
    import scipy.special as sp


    def f(x: "f64[n]", s: float):
        {body}
    """
    grad, _ = gradient(source, "f", ["x", "s"])
    f = primal(source, "f")
    s = 1.7
    d_x = np.zeros(3)
    d_s = grad(x, d_x, s, d_return=1.0)
    np.testing.assert_allclose(d_x, central_difference(f, [x, s], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_s, central_difference(f, [x, s], 1), rtol=1e-6, atol=1e-8)


LOG_MIXTURE = """
import math

from scipy.special import logsumexp


def log_mixture(x, w, mu, s):
    comps = np.log(w) - 0.5 * ((x[:, None] - mu) / s) ** 2 - np.log(s) - 0.5 * math.log(2 * math.pi)
    return np.sum(logsumexp(comps, axis=1))
"""


@pytest.mark.parametrize(("w", "s"), [(np.array([0.3, 0.7]), np.array([0.8, 1.3])), (0.5, 0.9)],
                         ids=["vectors", "numbers"])
def test_a_new_axis_is_there_to_meet_a_vector(w, s):
    """``x[:, None] - mu``: the new axis stretches to meet another array's, so ``mu`` is guessed a
    vector (checked), and the expression holding it is the array of ``comps`` (not ``w``, the
    first parameter of an elementwise sum whose operands could each be one). ``w`` and ``s`` meet
    that matrix only elementwise: numbers or vectors. Before, ``mu`` was taken for a number and a
    vector there failed inside the gradient's sums."""
    assert param_types(LOG_MIXTURE, "log_mixture")["mu"] == "array<f64,1>"
    grad, _ = gradient(LOG_MIXTURE, "log_mixture", ["w", "mu", "s"])
    f = primal(LOG_MIXTURE, "log_mixture")
    x, mu = np.array([0.1, -0.7, 1.2, 0.4, 2.0]), np.array([-0.2, 0.9])
    d_w, d_mu, d_s = np.zeros(np.shape(w)), np.zeros(2), np.zeros(np.shape(s))
    grad(x, w, d_w, mu, d_mu, s, d_s, d_return=1.0)
    args = [x, w, mu, s]
    for k, got in ((1, d_w), (2, d_mu), (3, d_s)):
        np.testing.assert_allclose(got, central_difference(f, args, k), rtol=1e-6, atol=1e-8)


def test_a_number_meeting_an_axis_of_extent_1_may_stretch_it():
    """``A.sum(axis=1, keepdims=True) - b``: an array ``b`` would stretch the unit axis, so the
    result's shape is the run time's: an axis reduction of it is no use a shape-generic value may
    have, and ``b`` keeps its check (a number). Before, a vector there failed inside the
    gradient's sums (the adjoint taken to keep the unit axis)."""
    body = """
    def f(A: "f64[n, m]", b):
        c = A.sum(axis=1, keepdims=True) - b
        return np.sum(np.max(c, axis=0) ** 2)
    """
    grad, text = gradient(body, "f", ["A", "b"])
    assert "b must be a number" in text
    f = primal(body, "f")
    A = np.arange(6.0).reshape(2, 3) / 5
    d_A = np.zeros((2, 3))
    d_b = grad(A, d_A, 0.3, d_return=1.0)
    np.testing.assert_allclose(d_A, central_difference(f, [A, 0.3], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_b, central_difference(f, [A, 0.3], 1), rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="b must be a number"):
        grad(A, d_A, np.ones(3), d_return=1.0)


RESIDUALS = """
def residuals(a, obs):
    state = np.array([a, a * a])
    traj = [state]
    for i in range(len(obs) - 1):
        state = state * a + 0.1
        traj.append(state)
    traj = np.array(traj)
    return np.sum((traj - obs) ** 2)
"""


@TARGETS
@pytest.mark.parametrize("obs", [np.array([[0.1, 0.2], [0.3, -0.1], [0.5, 0.4]]), np.array([0.2, -0.3])],
                         ids=["matrix", "row"])
def test_data_whose_length_the_source_reads_may_have_more_axes(obs, out):
    """``len(obs)`` counts obs's rows at any rank (the primal's number), and ``traj - obs`` takes a
    row as well as a matrix: obs is an array of 1 to 2 axes, not a guessed vector. A number, or
    more axes than traj, is refused at entry."""
    grad, text = gradient(RESIDUALS, "residuals", ["a"], out)
    assert "obs must be an array of 1 to 2 axes in residuals" in text
    f = primal(RESIDUALS, "residuals")
    got = grad(0.7, obs, d_return=1.0)
    np.testing.assert_allclose(got, central_difference(f, [0.7, obs], 0), rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="obs must be an array of 1 to 2 axes in residuals"):
        grad(0.7, 0.5)
    with pytest.raises(ValueError, match="obs must be an array of 1 to 2 axes in residuals"):
        grad(0.7, np.ones((2, 2, 2)))


@pytest.mark.parametrize("read", ["x.size", "x.shape[-1]"])
def test_an_extent_read_for_the_guessed_rank_keeps_the_rank_checked(read):
    """``x.size`` and ``x.shape[-1]`` read the IR's axes (the last of a guessed vector), not the
    number the primal reads at another rank: x keeps its rank check."""
    body = f"""
    def f(a, x):
        return np.sum((a - x) ** 2) / {read}
    """
    grad, text = gradient(body, "f", ["a"])
    assert "x must be a 1-D array" in text
    f = primal(body, "f")
    x = np.array([0.3, -0.2, 0.9])
    d_a = np.zeros(())
    grad(0.4, d_a, x)
    np.testing.assert_allclose(d_a, central_difference(f, [0.4, x], 0), rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="x must be a 1-D array"):
        grad(0.4, d_a, np.ones((2, 3)))


UFUNCS = """
def f(x, y, s):
    return np.sum(np.abs(y) * x + np.sin(s) * x)
"""


@TARGETS
@pytest.mark.parametrize(("y", "s"), [(-0.7, 0.4), (np.array([0.3, -1.2, 0.5]), 0.9),
                                      (0.6, np.array([[0.2], [-0.5]]))],
                         ids=["numbers", "vector_y", "column_s"])
def test_a_shape_generic_value_through_a_ufunc_whose_adjoint_chooses(y, s, out):
    """``np.abs(y)``, ``np.sin(s)`` of values that may be arrays: their adjoints' math is NumPy's
    (``np.cos``) and abs's choice of sign ``np.where`` (it was ``d if y >= 0 else -d``, which an
    array cannot take), so y and s serve any broadcasting shape."""
    grad, text = gradient(UFUNCS, "f", ["x", "y", "s"], out)
    assert "np.where(y >= 0.0" in text and "np.cos(s)" in text
    f = primal(UFUNCS, "f")
    x = np.array([0.5, -0.4, 1.2])
    d_x, d_y, d_s = np.zeros(3), np.zeros(np.shape(y)), np.zeros(np.shape(s))
    grad(x, d_x, y, d_y, s, d_s, d_return=1.0)
    for k, got in enumerate((d_x, d_y, d_s)):
        np.testing.assert_allclose(got, central_difference(f, [x, y, s], k), rtol=1e-6, atol=1e-8)


POWER = """
def f(X: "f64[m]", b, n: int):
    return np.sum(b ** n * X)
"""


@TARGETS
@pytest.mark.parametrize("b", [0.7, np.array([0.3, 1.1, 0.9])], ids=["number", "vector"])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_shape_generic_base_of_an_integer_power(b, n, out):
    """``b ** n`` with ``n`` an integer parameter: the adjoint's choice on ``n`` (0 at n = 0) is
    ``np.where``, so b serves any broadcasting shape (it stayed a checked number before)."""
    grad, text = gradient(POWER, "f", ["b"], out)
    assert "np.where(float(n) != 0.0" in text
    f = primal(POWER, "f")
    X = np.array([0.5, 1.5, -2.0])
    d_b = np.zeros(np.shape(b))
    grad(X, b, d_b, n, d_return=1.0)
    np.testing.assert_allclose(d_b, central_difference(f, [X, b, n], 1), rtol=1e-6, atol=1e-8)


GROWS_DATA = """
def f(w: "f64[n]", y):
    return np.sum((w - y) ** 2)
"""


@TARGETS
def test_data_that_grows_the_array_it_meets_is_refused_not_added_wrongly(out):
    """``w - y`` with data ``y`` longer than ``w`` (``w`` of length 1 broadcast): the gradient takes
    the result to have w's shape. NumPy's ``d_w += ...`` refuses the longer value; Numba's in-place
    addition does not check, and added its first element (a wrong d_w): there the addition is the
    output's add_into, which refuses it too. Shapes that fit are served."""
    grad, text = gradient(GROWS_DATA, "f", ["w"], out)
    assert ("add_into(d_w," in text) == (out == "numba")
    with pytest.raises(ValueError):
        grad(np.array([1.0]), np.zeros(1), np.arange(3.0))
    f = primal(GROWS_DATA, "f")
    w = np.array([1.0, 2.0, 0.5])
    for y in (0.7, np.arange(3.0)):
        d_w = np.zeros(3)
        grad(w, d_w, y)
        np.testing.assert_allclose(d_w, central_difference(f, [w, y], 0), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ values a loop carries
CARRIED = """
def polynomial(c, x):
    total = 0.0
    for k in range(len(c)):
        total = total + c[k] * x**k
    return np.sum(total)


def two_loops(c, x, n: int):
    total = 0.0
    for i in range(n):
        for k in range(len(c)):
            total = total + c[k] * np.exp(x * (i - k)) - 0.5 * x
    return total


def carried_then_squared(c, x):
    s = 0.0
    for k in range(len(c)):
        s -= c[k] * np.sin(x + k)
    return np.sum(s * s)
"""


@pytest.mark.parametrize("x", [0.7, np.linspace(-0.5, 0.9, 4), np.arange(6.0).reshape(2, 3) / 5],
                         ids=["number", "vector", "matrix"])
@pytest.mark.parametrize(("func", "extra"), [("polynomial", []), ("two_loops", [3]), ("carried_then_squared", [])])
def test_a_sum_a_loop_carries_from_a_number_serves_any_shape(func, extra, x):
    """``total = 0.0`` then ``total = total + c[k] * x ** k``: a number the loop rebinds to an array
    when ``x`` is one. The reverse loop carries an adjoint of the sum's final shape (it only adds
    it: no tape of the sum is read), and the same gradient is right at every rank of ``x``."""
    grad, text = gradient(CARRIED, func, ["c", "x"])
    assert "must be a number" not in text and "tape" not in text
    c = np.array([0.3, -1.2, 0.8])
    f = primal(CARRIED, func)
    d_c, d_x = np.zeros(3), np.zeros(np.shape(x))
    args = [c, d_c, x, d_x, *extra]
    grad(*args, d_return=1.0) if func != "two_loops" else grad(*args, d_return=np.ones(np.shape(x)))
    seed = (lambda *a: np.sum(f(*a))) if func == "two_loops" else f
    np.testing.assert_allclose(d_c, central_difference(seed, [c, x, *extra], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_x, central_difference(seed, [c, x, *extra], 1), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("body", [
    # the sum multiplied: its adjoint reads the sum, which no tape of numbers may keep
    "def f(c, x):\n    y = 0.0\n    for k in range(len(c)):\n        y = y * x + c[k]\n    return np.sum(y)\n",
    # the loop starts from a value that takes an adjoint of the start's shape
    "def f(c, x):\n    t = np.sum(c)\n    for k in range(len(c)):\n        t = t + c[k] * x\n    return np.sum(t)\n",
    # the sum of an inner loop squared in the outer one: a value of each outer iteration read back
    "def f(c, x):\n    s = 0.0\n    for i in range(3):\n        u = 0.0\n        for k in range(len(c)):\n"
    "            u = u + c[k] * x\n        s = s + u * u\n    return np.sum(s)\n",
], ids=["multiplied", "active_start", "inner_sum_squared"])
def test_a_sum_a_loop_carries_in_any_other_way_keeps_the_number_checked(body):
    grad, text = gradient(body, "f", ["c", "x"])
    assert "x must be a number" in text
    check_gradient(primal(body, "f"), grad, [ParamSpec("c", "array", (3,)), ParamSpec("x", "float")],
                   ["c", "x"], set(), np.random.default_rng(3), rtol=1e-5, atol=1e-7)


NESTED = """
def nested(c, x):
    total = 0.0
    for i in range(3):
        u = total
        for k in range(len(c)):
            u = u + c[k] * x
        total = total + u
    return np.sum(total)
"""


@pytest.mark.parametrize("x", [0.7, np.array([0.5, 1.5])], ids=["number", "vector"])
def test_a_sum_started_from_an_enclosing_loops_sum_is_never_changed_in_place(x):
    """``u = total`` then ``u = u + ...``: written ``u += ...`` the inner loop would change the array
    ``total`` names too (a wrong value, here 10/7 of the primal's). The value ``--with-value``
    returns is the primal's, ``np.sum`` of it (which the IR took for the number itself)."""
    text = pipeline.gradient_source(_source(NESTED), "prog.py", "nested", ["c", "x"], "py",
                                    pipeline.Options(with_value=True))
    assert "+=" not in text.split("# forward sweep")[1].split("# reverse sweep")[0]
    assert "return np.sum(total), None" in text
    namespace: dict = {}
    exec(compile(text, "<grad_nested>", "exec"), namespace)
    c, f = np.array([0.3, -1.2, 0.8]), primal(NESTED, "nested")
    d_c, d_x = np.zeros(3), np.zeros(np.shape(x))
    value, _ = namespace["grad_nested"](c, d_c, x, d_x)
    assert value == pytest.approx(f(c, x))
    np.testing.assert_allclose(d_c, central_difference(f, [c, x], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_x, central_difference(f, [c, x], 1), rtol=1e-6, atol=1e-8)


def test_a_whole_sum_of_a_carried_sum_used_again_keeps_the_number_checked():
    """``s = np.sum(total); return s * s``: the IR takes ``np.sum(total)`` for ``total``, which is
    its value at any shape only as the function's result (an array ``total`` squared elementwise
    is not its sum squared): the parameter stays a checked number."""
    body = """
    def f(c, x):
        total = 0.0
        for k in range(len(c)):
            total = total + c[k] * x**k
        s = np.sum(total)
        return s * s
    """
    grad, text = gradient(body, "f", ["c", "x"])
    assert "x must be a number" in text
    check_gradient(primal(body, "f"), grad, [ParamSpec("c", "array", (3,)), ParamSpec("x", "float")],
                   ["c", "x"], set(), np.random.default_rng(4), rtol=1e-5, atol=1e-7)


def test_numba_keeps_a_number_a_loop_carries_checked():
    """Numba gives a variable one type in a loop: the sum cannot start as a number and become an
    array there, so the Numba gradient keeps the parameter a checked number."""
    _, text = gradient(CARRIED, "polynomial", ["c", "x"], "numba")
    assert "x must be a number" in text


ADVECTION = """
def advection(u, c, steps: int):
    for _ in range(steps):
        u[1:] = u[1:] - c * (u[1:] - u[:-1])
    return np.sum(u * u)
"""


@pytest.mark.parametrize("c", [0.3, np.array([0.2, 0.3, 0.25, 0.4, 0.3])], ids=["number", "vector"])
@TARGETS
def test_an_adjoint_sum_a_loop_carries_keeps_its_type_in_numba(c, out):
    """The reverse loop sums ``c``'s shares: Numba's sum starts as ``np.zeros_like(c)`` and is added
    into in place (``d_c2 += ...``), since ``d_c2 = d_c2 + ...`` of a 0-d array is a number to Numba
    and the variable would change type in the loop (a TypingError: corpus physics:advection_upwind)."""
    grad, _ = gradient(ADVECTION, "advection", ["u", "c"], out)
    f = primal(ADVECTION, "advection")
    u = np.linspace(0.0, 1.0, 6)
    d_u, d_c = np.zeros(6), np.zeros(np.shape(c))
    grad(u.copy(), d_u, c, d_c, 3)
    np.testing.assert_allclose(d_c, central_difference(lambda c_: f(u.copy(), c_, 3), [c], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_u, central_difference(lambda u_: f(u_.copy(), c, 3), [u], 0), rtol=1e-6, atol=1e-8)


HELPER_SUM = """
def total_of(t):
    return np.sum(t)


def f(c, x):
    s = 0.0
    for k in range(len(c)):
        s = s + c[k] * x**k
    r = total_of(s)
    return r * r
"""


def test_a_whole_sum_a_helper_takes_of_an_argument_is_seen_by_the_caller():
    """``total_of(s)`` sums ``s`` where the helper's parameter reaches NumPy: the caller's ``x``,
    whose value reaches ``s``, may be an array there (a guess, so checked), and the sum, which the
    IR takes for ``s`` itself, is marked on ``s`` once the helper is inlined. An array ``x`` was
    taken for a proven number (no check) and got ``2 s ds/dx`` elementwise for ``2 sum(s) ds/dx``."""
    grad, text = gradient(HELPER_SUM, "f", ["c", "x"])
    assert "x must be a number" in text
    c = np.array([0.3, -1.2, 0.8])
    with pytest.raises(ValueError, match="x must be a number"):
        grad(c, np.zeros(3), np.array([0.5, 1.5]))
    check_gradient(primal(HELPER_SUM, "f"), grad, [ParamSpec("c", "array", (3,)), ParamSpec("x", "float")],
                   ["c", "x"], set(), np.random.default_rng(5), rtol=1e-5, atol=1e-7)


# -- an array rebound in a loop beside a shape-generic parameter -------------------------------------

REBOUND_BESIDE_GENERIC = """
def f(q):
    Q = q * np.eye(2)
    P = np.eye(2)
    for _ in range(3):
        P = P @ P + Q
        P = P - np.outer(P[0], P[1])
    return np.sum(P)
"""


@TARGETS
@pytest.mark.parametrize("shape", [(), (2,), (2, 1), (1, 2), (2, 2)])
def test_a_rebound_arrays_shape_check_lets_a_generic_parameter_stretch(out, shape):
    """``P`` keeps its 2 x 2 shape only if ``q * np.eye(2)`` does: the entry checks each axis of
    ``q`` NumPy aligns with it, which a number or a shorter array has one long (probe p61: the
    check asked for ``np.shape(q)[0]`` of a number, an IndexError in the gradient itself)."""
    grad, _ = gradient(REBOUND_BESIDE_GENERIC, "f", ["q"], out)
    q = np.linspace(0.1, 0.4, int(np.prod(shape))).reshape(shape)
    d_q = np.zeros(shape)
    grad(q if shape else float(q), d_q)
    expected = central_difference(primal(REBOUND_BESIDE_GENERIC, "f"), [q], 0)
    assert d_q == pytest.approx(expected, rel=1e-5, abs=1e-7)


@TARGETS
def test_a_generic_parameter_that_would_grow_the_rebound_array_is_refused(out):
    grad, _ = gradient(REBOUND_BESIDE_GENERIC, "f", ["q"], out)
    with pytest.raises(ValueError, match=r"must equal q.shape\[1\] \(or be 1\)"):
        grad(np.ones(3), np.zeros(3))


# scipy's xlogy(y, p) of a guessed number y and an array p stretches y over p (arr.broadcast):
# y is shape-generic too, its adjoint summed back to its own shape (probe round 10: y was a
# number, and a data vector was refused at the gradient's entry)
XLOGY = """
from scipy.special import xlogy


def f(a, y):
    return np.sum(xlogy(y, np.exp(a)))
"""


@TARGETS
@pytest.mark.parametrize("y", [0.7, np.array([1.0, 0.0, 3.0])], ids=["number", "vector"])
def test_a_number_stretched_over_an_array_is_shape_generic(out, y):
    grad, _ = gradient(XLOGY, "f", ["a", "y"], out)
    a = np.array([0.1, 0.2, -0.3])
    d_a, d_y = np.zeros(3), np.zeros(np.shape(y))
    grad(a, d_a, y, d_y)
    f = primal(XLOGY, "f")
    np.testing.assert_allclose(d_a, central_difference(f, [a, y], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_y, central_difference(f, [a, y], 1), rtol=1e-6, atol=1e-8)
