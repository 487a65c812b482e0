"""Parameters that default to None (parse/py_none_defaults): a helper's decided by each call, an
instance per choice; the function differentiated's filled where it starts, its gradient keeping
``w=None`` and the same fill. Each gradient is checked against central differences."""

import numpy as np
import pytest
from fd import central_difference
from source_gradients import HEADER, arr, check_command, check_source, load

from s2sad import pipeline

# The function differentiated fills its weights where it starts (both spellings).
FILLED = HEADER + """
def f(x, y: "f64[n]", w=None, scale=None):
    if w is None:
        w = np.full(x.shape[0], 1.0 / len(x))
    scale = 2.0 if scale is None else scale
    r = x - y
    return scale * np.sum(w * r ** 2)
"""


def _gradient(source: str, wrt: list[str], target: str):
    text = pipeline.gradient_source(source, "prog.py", "f", wrt, target, pipeline.Options())
    grad = load(text, "<grad f>")["grad_f"]
    return text, (grad.py_func if target == "numba" and hasattr(grad, "py_func") else grad)


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_parameter_filled_where_the_function_starts_keeps_none_as_its_default(target):
    text, grad = _gradient(FILLED, ["x"], target)
    assert "def grad_f(x, d_x, y, w=None, scale=None" in text, text
    assert "if w is None:\n        w = np.full(x.shape[0], 1.0 / len(x))" in text, text
    f = load(FILLED, "<f>")["f"]
    rng = np.random.default_rng(3)
    x, y, w = rng.normal(size=5), rng.normal(size=5), rng.uniform(0.5, 1.5, 5)
    for given in [(), (w,), (w, 0.7)]:  # the fills, each default kept, then none
        d_x = np.zeros(5)
        grad(x, d_x, y, *given)
        expected = central_difference(lambda v: f(v, y, *given), [x], 0)
        assert np.allclose(d_x, expected, rtol=1e-6, atol=1e-8), (given, d_x, expected)


def test_the_shadow_of_a_filled_parameter_is_keyword_only():
    text, grad = _gradient(FILLED, ["x", "w"], "py")
    assert "def grad_f(x, d_x, y, w=None, *, d_w, scale=None" in text, text
    f = load(FILLED, "<f>")["f"]
    rng = np.random.default_rng(4)
    x, y, w = rng.normal(size=4), rng.normal(size=4), rng.uniform(0.5, 1.5, 4)
    d_x, d_w = np.zeros(4), np.zeros(4)
    grad(x, d_x, y, w, d_w=d_w)
    assert np.allclose(d_w, central_difference(lambda v: f(x, y, v), [w], 0), rtol=1e-6, atol=1e-8)
    assert np.allclose(d_x, central_difference(lambda v: f(v, y, w), [x], 0), rtol=1e-6, atol=1e-8)


def test_c_output_takes_a_filled_parameter_as_any_other(tmp_path, capsys):
    check_command(tmp_path, capsys, FILLED.replace('w=None', 'w: "f64[n]" = None').replace(
        "def f(x,", 'def f(x: "f64[n]",'), "f", "x,w", "x=5", "c")


# Helpers whose calls decide: a bias given or not, a fill, a None passed on to another helper.
HELPERS = HEADER + """
def dense(x, W, b=None, scale=1.0):
    h = x @ W
    if b is not None:
        h = h + b
    return scale * np.tanh(h)


def weights_of(x, w=None):
    if w is None:
        w = np.full(x.shape[0], 1.0 / x.shape[0])
    return w


def mean_of(x, w=None):
    return np.sum(weights_of(x, w) * x)


def penalty(W, lam=None):
    lam = lam if lam is not None and lam > 0.0 else 0.1  # (decided: a number, or 0.1)
    return 0.5 * np.sum(W ** 2) * lam


def f(X: "f64[n, d]", W1: "f64[d, k]", b1: "f64[k]", W2: "f64[k, m]", v: "f64[n]"):
    h = dense(X, W1, b1)
    out = dense(h, W2, None, 2.0)
    s = mean_of(out[:, 0]) + mean_of(out[:, 0], v)
    return s + penalty(W1) + penalty(W2, 0.3)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_helpers_are_instanced_for_the_none_parameters_their_calls_give(target):
    params = [arr("X", 5, 3), arr("W1", 3, 4), arr("b1", 4), arr("W2", 4, 2), arr("v", 5)]
    text = check_source(HELPERS, ["W1", "b1", "W2", "v"], params, target)
    assert "is None" not in text.split('"""')[-1], text


def test_a_helper_that_reads_a_none_parameter_before_filling_it_stays_refused():
    source = HELPERS.replace("    if w is None:\n        w = np.full", "    n = np.sum(w)\n    if w is None:\n"
                             "        w = np.full")
    text = _refusal(source)
    assert text.startswith("prog.py:16:8: error: a test of None is supported only where it is decided"), text


def test_a_test_of_none_past_the_start_of_the_function_differentiated_is_refused_with_a_true_hint():
    source = FILLED.replace("    r = x - y\n", "    r = x - y\n    if w is None:\n        r = r * 2.0\n")
    text = _refusal(source)
    assert "a test of None is supported only where" in text and "'if w is None: w = ...'" in text, text


def _refusal(source: str) -> str:
    from s2sad.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "prog.py", "f", ["x" if "def f(x" in source else "W1"], "py")
    return info.value.render()


def test_a_fill_reading_a_parameter_rebound_before_it_is_not_moved_to_the_entry():
    """``x = x[1:]`` before ``if w is None: w = np.ones(x.shape[0])``: the fill reads the new ``x``,
    which the gradient's entry does not have; it stays in the body, refused where it tests None."""
    source = FILLED.replace("    if w is None:\n", "    x = x[1:]\n    y = y[1:]\n    if w is None:\n")
    text = _refusal(source)
    assert "a test of None is supported only where it is decided before typing" in text, text
