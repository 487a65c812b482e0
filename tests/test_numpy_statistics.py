"""NumPy's statistics, products, running sums, clipping and ufunc spellings, and scipy.special's
functions of differentiable arguments (golden/array_statistics, array_clip_sign,
ufunc_operator_spellings, scipy_special_functions hold the whole outputs, checked against central
differences). Here: the gradients at the edges the README's table states, exactly, and the forms
that stay located errors."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from fd import check_source_function

from s2sad import pipeline
from s2sad.cli import main
from s2sad.diagnostics import DiagnosticError


def _gradient(source: str, func: str, wrt: list[str], target: str = "py"):
    text = pipeline.gradient_source(textwrap.dedent(source), "prog.py", func, wrt, target)
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)
    return namespace[f"grad_{func}"], text


PROD = """
import numpy as np


def f(x: "f64[n]", A: "f64[m, n]"):
    return np.prod(x) + np.sum(np.prod(A, axis=0)) + np.sum(A.prod(axis=1))
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_the_adjoint_of_prod_is_the_product_of_the_other_entries_where_one_is_zero(target):
    grad, text = _gradient(PROD, "f", ["x", "A"], target)
    assert "d_x += np.full_like(x, d_return) * prod_of_others(x)" in text
    x = np.array([2.0, 0.0, 3.0])
    A = np.array([[0.0, 2.0, 0.0], [4.0, 5.0, 0.0]])
    d_x, d_A = np.zeros(3), np.zeros((2, 3))
    grad(x, d_x, A, d_A)
    assert np.array_equal(d_x, [0.0, 6.0, 0.0])  # one zero: the product of the rest, the others 0
    # down the columns, the other entry of each; along the rows: 2 * 0 for the two-zero row
    assert np.array_equal(d_A, [[4.0, 5.0, 0.0], [0.0, 2.0, 20.0]])


CLIP = """
import numpy as np


def f(x: "f64[n]", lo: float, hi: float):
    return np.sum(np.clip(x, lo, hi))
"""


def test_clip_gives_the_adjoint_to_x_at_the_bounds():
    grad, _ = _gradient(CLIP, "f", ["x", "lo", "hi"])
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    d_x = np.zeros(5)
    d_lo, d_hi = grad(x, d_x, -0.5, 0.5)
    assert np.array_equal(d_x, [0.0, 1.0, 1.0, 1.0, 0.0])  # closed interval: x at -0.5 and 0.5 passes
    assert (d_lo, d_hi) == (1.0, 1.0)


def test_cumsum_adjoint_is_the_running_sum_from_the_end():
    grad, text = _gradient('import numpy as np\n\n\ndef f(x: "f64[n]", w: "f64[n]"):\n'
                           '    return np.sum(np.cumsum(x) * w)\n', "f", ["x"])
    assert "np.cumsum((d_return * w)[::-1])[::-1]" in text
    x, w = np.arange(4.0), np.array([1.0, 2.0, 3.0, 4.0])
    d_x = np.zeros(4)
    grad(x, d_x, w)
    assert np.array_equal(d_x, [10.0, 9.0, 7.0, 4.0])


def _diagnose(source: str, target: str = "py") -> str:
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(textwrap.dedent(source), "prog.py", "f", ["x"], target)
    return info.value.render()


@pytest.mark.parametrize(
    "body, fragment",
    [
        ("return np.sum(np.cumsum(A))", "np.cumsum of a matrix without axis= (the running sum of its flattened"),
        ("return np.var(x, ddof=k)", "ddof= must be a non-negative integer literal"),
        ("return np.std(A, axis=k)", "axis= must be an integer literal"),
        ("return np.prod(s, axis=0)", "'s' is not an array"),
        ("return np.sum(np.float_power(idx, idx)) + np.sum(x)", "np.float_power of integer arrays is not supported"),
        ("return np.sum(math.lgamma(x))", "is not supported on whole arrays"),
    ],
)
def test_unsupported_forms_are_located_errors(body, fragment):
    source = f"""
        import math

        import numpy as np
        import scipy.special as sp


        def f(x: "f64[n]", A: "f64[m, n]", s: float, idx: "i64[n]", k: int):
            {body}
        """
    text = _diagnose(source)
    assert fragment in text, text
    assert "prog.py:9:" in text and "^" in text


NUMPY_ON_NUMBERS = """
import math

import numpy as np


def f(x: float, y: float):
    return np.log(x) + np.divide(y, x) + math.exp(y)
"""


def test_numpy_functions_of_numbers_keep_numpys_semantics_in_the_gradient():
    grad, text = _gradient(NUMPY_ON_NUMBERS, "f", ["x", "y"])
    assert "np.divide(d_return, x)" in text and "math.exp(y)" in text  # math stays math
    with np.errstate(divide="ignore", invalid="ignore"):
        d_x, d_y = grad(0.0, 1.0)  # the primal is -inf + inf: NaN, and raises nothing
    assert math.isinf(d_y) and not math.isfinite(d_x)


NUMBERS_REDUCED = """
import numpy as np


def f(c: "f64[n]", s: float, k: int):
    total = 0.0
    for j in range(len(c)):
        total = total + c[j] * s**j
    return np.sum(total) + np.mean(s * 2.0) + np.prod(s) + np.max(c[0] * s) + np.min(k * s)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_whole_reductions_of_a_number_are_the_number(target):
    """np.sum(total) of a total that only ever adds numbers: NumPy gives the number (a float for
    np.mean of an integer); so does the gradient, checked against central differences."""
    grad, _ = _gradient(NUMBERS_REDUCED, "f", ["c", "s"], target)
    namespace: dict = {}
    exec(compile(textwrap.dedent(NUMBERS_REDUCED), "prog.py", "exec"), namespace)
    f = namespace["f"]
    c, s, k = np.array([0.5, -1.0, 2.0]), 0.7, 3
    d_c = np.zeros(3)
    d_s = grad(c, d_c, s, k)
    h = 1e-6
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        assert math.isclose(d_c[j], (f(c + e, s, k) - f(c - e, s, k)) / (2 * h), rel_tol=1e-6, abs_tol=1e-8)
    assert math.isclose(d_s, (f(c, s + h, k) - f(c, s - h, k)) / (2 * h), rel_tol=1e-6)


POSITIONAL_AXIS = """
import numpy as np


def f(X, w: "f64[n]"):
    a = np.sum(X**2, 1)
    b = X.mean(0)
    c = np.max(X, -1)
    return np.sum(a * w) + np.sum(b**2) + np.sum(c) + X.sum(1).sum() + np.std(X, 0).sum()
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_reductions_axis_passed_by_position_is_its_axis(target):
    from source_gradients import arr, check_source

    text = check_source(POSITIONAL_AXIS, ["X", "w"], [arr("X", 3, 4), arr("w", 3)], target)
    assert "axis=1" in text and "axis=0" in text


LOGSUMEXP = """
import numpy as np
import scipy.special as sp
from scipy.special import logsumexp


def f(X, mu, s: float):
    d = X[:, None] - mu[None, :]
    logp = -0.5 * d**2 / s**2
    return np.sum(logsumexp(logp, axis=1)) + sp.logsumexp(mu) + logsumexp(logp, axis=0)[1]
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_logsumexp_is_the_shifted_sum_scipy_computes(target):
    from source_gradients import arr, check_source, num

    text = check_source(LOGSUMEXP, ["X", "mu", "s"], [arr("X", 5), arr("mu", 3), num("s", 0.5, 1.5)], target)
    assert "np.max(logp, axis=1, keepdims=True)" in text or target == "numba"  # the shift, written out
    grad, _ = _gradient(LOGSUMEXP, "f", ["mu"], target)
    d_mu = np.zeros(3)
    grad(np.zeros(5), np.array([1000.0, 1000.0, 0.0]), d_mu, 1.0)  # no overflow: the shift
    assert np.all(np.isfinite(d_mu))


TRAPEZOID = """
import numpy as np


def f(y, x, h: float):
    t = np.linspace(0.0, 1.0, 6)
    return np.trapezoid(y * y, x) + np.trapezoid(np.sin(y), dx=h) + np.trapezoid(y) + np.trapezoid(y**3, t)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_trapezoid_is_the_sum_numpy_computes(target):
    """np.trapezoid (np.trapz before NumPy 2) written out: the sum of the trapezoids' areas."""
    from source_gradients import arr, check_source, num

    text = check_source(TRAPEZOID, ["y", "x", "h"], [arr("y", 6), arr("x", 6), num("h", 0.1, 0.5)], target)
    spelled = TRAPEZOID.replace("np.trapezoid(", "np.trapz(")

    def code(t: str) -> list[str]:  # (the comments quote the source line, spelled as written)
        return [line for line in t.splitlines() if not line.lstrip().startswith("#")]
    assert code(pipeline.gradient_source(spelled, "prog.py", "f", ["y", "x", "h"], target)) == code(text)


AVERAGE = """
import numpy as np


def f(x: "f64[n]", A: "f64[m, n]", n: int, m: int):
    w = np.exp(-x)
    c = np.average(A, axis=0)
    return np.average(x, weights=w) * np.sum(c) + np.average(np.average(A, 1)) + np.average(x * x, axis=None)
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_average_is_the_mean_or_the_weighted_sum_numpy_computes(tmp_path, capsys, target):
    """np.average: without weights ``np.mean`` (along a literal axis, by keyword or by position);
    with weights and no axis ``np.sum(a * w) / np.sum(w)``."""
    from source_gradients import check_command

    check_command(tmp_path, capsys, AVERAGE, "f", "x,A", "n=4,m=3", target)


def test_average_with_weights_along_an_axis_stays_refused():
    source = AVERAGE.replace("np.average(A, axis=0)", "np.average(A, axis=0, weights=x[:3])")
    with pytest.raises(DiagnosticError, match="np.average"):
        pipeline.gradient_source(source, "prog.py", "f", ["x"], "py")


LOGADDEXP = """
import numpy as np


def softplus_loss(z, y):
    return np.sum(np.logaddexp(0.0, z) - y * z)


def pair(a: float, b: float):
    return np.logaddexp(a, b) * 2.0


def arrays(a: "f64[n]", b: "f64[n]"):
    return np.sum(np.logaddexp(a, b) ** 2)
"""


@pytest.mark.parametrize(("func", "args", "wrt"), [
    ("softplus_loss", [np.array([0.3, -1.2, 2.5, 0.0]), np.array([1.0, 0.0, 1.0, 1.0])], ["z"]),
    ("softplus_loss", [0.7, np.array([1.0, 0.0, 1.0])], ["z"]),
    ("pair", [0.3, -1.2], ["a", "b"]),
    ("pair", [0.4, 0.4], ["a", "b"]),  # a tie: each gets half
    ("arrays", [np.array([0.3, -2.0, 5.0]), np.array([0.3, 1.0, -40.0])], ["a", "b"]),
], ids=["logistic_loss", "number_z", "numbers", "tie", "arrays"])
def test_logaddexp_is_written_without_overflow_and_differentiated(func, args, wrt):
    """``np.logaddexp(a, b)`` is ``max(a, b) + log1p(exp(-|a - b|))`` (the logistic loss written
    as NumPy code writes it): right for numbers, arrays, a number broadcast over data, and at a
    tie, where each operand's derivative is one half."""
    check_source_function(LOGADDEXP, func, args, wrt, "py")


POLYVAL = """
import numpy as np


def poly_fit_loss(c, x, y):
    pred = np.polyval(c, x)
    return np.mean((pred - y) ** 2)


def poly_at(c, t: float):
    return np.polyval(c, t) ** 2


def poly_grid(c: "f64[k]", X: "f64[n, m]"):
    return np.sum(np.sin(np.polyval(c, X)))
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize(("func", "args", "wrt"), [
    ("poly_fit_loss", [np.array([0.5, -1.0, 2.0]), np.linspace(-1.0, 2.0, 6), np.linspace(0.0, 1.0, 6)], ["c", "x"]),
    ("poly_at", [np.array([0.3, 0.5, -1.0, 2.0]), 0.7], ["c", "t"]),
    ("poly_grid", [np.array([0.3, -0.2, 1.0]), np.arange(6.0).reshape(2, 3) / 4], ["c", "X"]),
], ids=["fit", "number", "matrix"])
def test_polyval_is_horners_rule(func, args, wrt, target):
    """``np.polyval(c, x)`` is a loop over the coefficients, ``y = y * x + c[k]``: at a number, a
    vector of points (guessed one, as the residual's other operand is data) or a matrix."""
    if target == "numba" and func == "poly_fit_loss":
        args = [*args[:2], 0.4]  # Numba types y once: a checked number (shape-generic values are Python's)
    check_source_function(POLYVAL, func, args, wrt, target)


NORM = """
import numpy as np
from scipy import stats
from scipy.stats import norm


def black_scholes(S: float, K: float, T: float, r: float, sigma: float):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2)


def by_name(x: "f64[n]", mu: float, sigma: float):
    return np.sum(stats.norm.logpdf(x, loc=mu, scale=sigma) + norm.pdf(x, scale=sigma) + norm.cdf(x))


def probit_nll(w, X, y):
    p = norm.cdf(X @ w)
    return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize(("func", "args", "wrt"), [
    ("black_scholes", [100.0, 95.0, 0.5, 0.02, 0.3], ["S", "T", "sigma"]),
    ("by_name", [np.array([0.3, -1.1, 2.0]), 0.2, 0.8], ["x", "mu", "sigma"]),
    ("probit_nll", [np.array([0.2, -0.4]), np.array([[0.5, 1.0], [-1.2, 0.3], [0.7, -0.8]]),
                    np.array([1.0, 0.0, 1.0])], ["w"]),
], ids=["black_scholes", "loc_and_scale_by_name", "probit"])
def test_scipy_stats_norm(func, args, wrt, target, tmp_path):
    """scipy.stats.norm's ``cdf``, ``pdf`` and ``logpdf`` (``loc`` and ``scale`` by position or by
    name) are written with ``erfc``, ``exp`` and ``log``: Black-Scholes and a probit model as
    finance and statistics code writes them; checked by ``s2sad check`` in every target."""
    if target == "c" and func == "probit_nll":
        pytest.skip("unannotated parameters: C refuses them (the annotation is named)")
    if target != "py":  # s2sad check: the compiled gradient against central differences
        path = tmp_path / "prog.py"
        path.write_text(NORM)
        assert main(["check", str(path), "--func", func, "--wrt", ",".join(wrt), "--target", target,
                     "--range", "0.2,1.2"]) == 0
        return
    check_source_function(NORM, func, args, wrt, target)
