"""An in-place update of a value nothing else holds (``ll = np.log(y + b); ll += y * a``) is the
rebinding ``ll = ll + y * a`` (parse/py_fresh_updates.py): typing took it for a store into an
array, which made ``y + b`` one and guessed a vector among its parameters, the others numbers, and
the natural call with vectors was refused at the gradient's entry (probe round 10, a
negative-binomial log-likelihood). Where another name may hold the value, the update stays in
place, and what the other name sees follows. Every gradient is checked against central
differences."""

from __future__ import annotations

import numpy as np
import pytest
from fd import central_difference

from source_gradients import HEADER, arr, check_source, load, the_refusal
from s2sad import pipeline

CORRECTED = HEADER + """
def f(a, b, y):
    ll = np.log(y + b)
    ll += y * a
    return np.sum(ll)
"""

LIKELIHOOD = HEADER + """from scipy.special import gammaln


def nb_loglik(log_mu, log_r, y):
    mu = np.exp(log_mu)
    r = np.exp(log_r)
    ll = gammaln(y + r) - gammaln(r) - gammaln(y + 1)
    ll += r * np.log(r) - (y + r) * np.log(r + mu)
    ll *= 0.5
    return -np.sum(ll)
"""


def _gradient(source: str, func: str, wrt: list[str], target: str = "py"):
    text = pipeline.gradient_source(source, "prog.py", func, wrt, target)
    gradient = load(text, f"<grad {func}>")[f"grad_{func}"]
    return (gradient.py_func if target == "numba" else gradient), load(source, "<primal>")[func]


@pytest.mark.parametrize("b", [0.3, np.array([0.2, 0.5, 0.1])], ids=["b_number", "b_vector"])
@pytest.mark.parametrize("target", ["py", "numba"])
def test_an_update_of_a_fresh_value_keeps_the_parameters_shape_generic(b, target):
    grad, f = _gradient(CORRECTED, "f", ["a", "b"], target)
    a, y = np.array([0.1, -0.2, 0.3]), np.array([1.0, 2.0, 3.0])
    d_a, d_b = np.zeros(3), np.zeros(np.shape(b))
    grad(a, d_a, b, d_b, y)
    np.testing.assert_allclose(d_a, central_difference(f, [a, b, y], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_b, central_difference(f, [a, b, y], 1), rtol=1e-6, atol=1e-8)


def test_a_likelihood_corrected_in_place_takes_vectors_and_a_number():
    grad, f = _gradient(LIKELIHOOD, "nb_loglik", ["log_mu", "log_r"])
    log_mu, y = np.array([0.1, 0.4, -0.3, 0.8]), np.array([1.0, 0.0, 4.0, 2.0])
    for log_r in (0.2, np.array([0.1, 0.3, -0.2, 0.5])):
        d_mu, d_r = np.zeros(4), np.zeros(np.shape(log_r))
        grad(log_mu, d_mu, log_r, d_r, y)
        np.testing.assert_allclose(d_mu, central_difference(f, [log_mu, log_r, y], 0), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(d_r, central_difference(f, [log_mu, log_r, y], 1), rtol=1e-6, atol=1e-8)


# Another name holds the value (an alias, a view), or the update runs in a loop: it stays in
# place, and what the other name reads is the updated value.
HELD = HEADER + """
def alias(x: "f64[n]", a: "f64[n]"):
    ll = np.exp(x)
    m = ll
    ll += a * a
    return np.sum(m * x)


def view(x: "f64[n]", a: "f64[n]"):
    ll = np.exp(x)
    tail = ll[1:]
    ll *= a
    return np.sum(tail ** 2)


def looped(x: "f64[n]", a: "f64[n]"):
    acc = np.sin(x)
    for k in range(3):
        acc += a * acc
    return np.sum(acc ** 2)


def chained(x: "f64[n]", a: "f64[n]"):
    r = x - a
    r /= np.sum(a * a)
    r **= 2
    return np.sum(r)
"""


@pytest.mark.parametrize("func", ["alias", "looped", "chained"])
def test_an_update_another_name_sees_stays_in_place(func):
    text = check_source(HELD, ["x", "a"], [arr("x", 5), arr("a", 5)], func=func)
    if func == "alias":  # nothing rewrote the update into a rebinding
        assert "ll2" not in text, text


def test_an_update_a_view_sees_is_refused_as_before():
    d = the_refusal(HELD, ["x", "a"], "view")
    assert "'tail' is a view of this array" in d.message
