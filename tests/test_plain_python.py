"""Python as scripts write it: defaults and keyword-only parameters, local functions and lambdas,
max/min of an iterable, print and logging, Numba decorators with explicit signatures.

The golden cases (default_parameters, keyword_only_parameters, local_functions,
max_min_of_iterables, print_and_logging, numba_signature) hold whole outputs; here, the
signatures the gradient takes, gradients checked against central differences when called the
way the primal is, and each refusal's located message."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from cbuild import CFunction, Out, build, have_gcc

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError


def _source(src: str) -> str:
    return textwrap.dedent(src).lstrip()


def _gradient(src: str, func: str, wrt: list[str], target: str = "py") -> tuple[str, dict]:
    text = pipeline.gradient_source(_source(src), "prog.py", func, wrt, target, pipeline.Options())
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    return text, namespace


def _primal(src: str) -> dict:
    namespace: dict = {}
    exec(compile(_source(src), "prog.py", "exec"), namespace)
    return namespace


def _words(text: str) -> str:
    """``text`` with its line breaks as spaces (docstrings are wrapped)."""
    return " ".join(text.replace("#", " ").replace("//", " ").split())


def _refusal(src: str, func: str, wrt: list[str], target: str = "py") -> str:
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(_source(src), "prog.py", func, wrt, target, pipeline.Options())
    text = e.value.render()
    assert "Traceback" not in text and "hint:" in text
    return text


def _central(f, x: float, h: float = 1e-6) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


DEFAULTS = """
    import math

    def helper(t, k=2.0, *, m=1.0):
        return m * t ** k

    def f(x, a=1.5, *, scale=2.0):
        return scale * math.sin(a * x) + helper(x) + helper(x, 3.0) + helper(k=1.5, t=x, m=0.5)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_defaults_and_keyword_only_parameters_are_kept(target):
    text, ns = _gradient(DEFAULTS, "f", ["x", "a"], target)
    if target == "py":
        assert "def grad_f(x, a=1.5, *, scale=2.0, d_return=1.0):" in text
        assert "scale and d_return are keyword-only, as what follows the * of f is." in _words(text)
    else:  # Numba has no keyword-only parameters: they stay callable by keyword
        assert "def grad_f(x, a=1.5, scale=2.0, d_return=1.0):" in text
        assert "scale, keyword-only in f, may also be passed by position here" in _words(text)
    assert "a and scale keep their defaults, as in f." in _words(text)
    f = _primal(DEFAULTS)["f"]
    x = 0.7
    for kwargs in ({}, {"scale": 3.0}):
        dx, da = ns["grad_f"](x, **kwargs)
        assert dx == pytest.approx(_central(lambda v: f(v, **kwargs), x), rel=1e-6)
        assert da == pytest.approx(_central(lambda v: f(x, v, **kwargs), 1.5), rel=1e-6)
    dx, da = ns["grad_f"](x, 0.5, scale=1.0, d_return=2.0)
    assert dx == pytest.approx(2.0 * _central(lambda v: f(v, 0.5, scale=1.0), x), rel=1e-6)


def test_c_output_says_what_the_defaults_were():
    text = pipeline.gradient_source(_source(DEFAULTS), "prog.py", "f", ["x"], "c", pipeline.Options())
    assert "void grad_f(double x, double *d_x, double a, double scale, double d_return)" in text
    assert "C has no default arguments: pass every one (f's defaults are a = 1.5, scale = 2.0)." in _words(text)


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_c_output_takes_every_parameter():
    text = pipeline.gradient_source(_source(DEFAULTS), "prog.py", "f", ["x", "a"], "c", pipeline.Options())
    grad = CFunction(build(text), "grad_f", ["double", "double *", "double", "double *", "double", "double"])
    f = _primal(DEFAULTS)["f"]
    d_x, d_a = Out(), Out()
    grad(0.7, d_x, 1.5, d_a, 3.0, 1.0)
    assert d_x.value == pytest.approx(_central(lambda v: f(v, scale=3.0), 0.7), rel=1e-6)
    assert d_a.value == pytest.approx(_central(lambda v: f(0.7, v, scale=3.0), 1.5), rel=1e-6)


ARRAY_RESULT = """
    import numpy as np

    def f(x: "f64[n]", scale=2.0):
        return np.exp(x) * scale
"""


def test_a_seed_without_default_after_defaults_is_keyword_only():
    text, ns = _gradient(ARRAY_RESULT, "f", ["x"])
    assert "def grad_f(x, d_x, scale=2.0, *, d_return):" in text
    assert "d_return is keyword-only: it has no default and follows parameters that have one." in _words(text)
    x = np.array([0.1, -0.3, 0.5])
    d_x = np.zeros(3)
    ns["grad_f"](x, d_x, d_return=np.ones(3))
    np.testing.assert_allclose(d_x, 2.0 * np.exp(x))


def test_numba_refuses_a_seed_it_cannot_place():
    text = _refusal(ARRAY_RESULT, "f", ["x"], "numba")
    assert "--target numba: the gradient's parameter 'd_return' has no default and follows parameters" in text


@pytest.mark.parametrize("call, message", [
    ("g(x, c=2.0)", "'g' has no parameter named 'c'"),
    ("g(x, a=2.0)", "'g' got several values for parameter 'a'"),
    ("g(x, 1.0, 2.0)", "'g' takes 2 positional argument(s) but more were given"),
    ("g(b=1.0)", "missing argument 'a' in the call to 'g'"),
])
def test_calls_bound_as_python_binds_them(call, message):
    src = f"""
        def g(a, b=1.0):
            return a * b

        def f(x):
            return {call}
    """
    assert message in _refusal(src, "f", ["x"])


def test_a_call_leaving_a_default_none_is_the_helper_without_it():
    """``lse(x)`` of ``def lse(a, axis=None)``: refused before as a default of None, now the
    instance without ``axis`` (py_none_defaults), whose ``np.sum(..., axis=None)`` is NumPy's
    default; ``lse(x, axis=1)`` is the instance with it."""
    from source_gradients import arr, check_source

    src = """
import numpy as np


def lse(a, axis=None):
    return np.log(np.sum(np.exp(a), axis=axis))


def f(x: "f64[n, m]"):
    return lse(x) + np.sum(lse(x, axis=1)) + np.mean(np.max(x, axis=None) * x) + np.nansum(x, axis=None) \\
        + np.average(x * x, axis=None) + x.sum(axis=None)
"""
    check_source(src, ["x"], [arr("x", 3, 4)])


def test_a_default_that_is_not_a_number_is_refused_for_the_function_differentiated_only():
    src = """
        def g(t, w=None):
            return t * 2.0

        def f(x, w=None):
            return g(x, 1.0)
    """
    text = _refusal(src, "f", ["x"])
    assert "prog.py:4:12: error: the default value of parameter 'w' is not a number" in text
    assert text.count("error:") == 1  # g's default needs no keeping: its call passes w


LOCAL = """
    import math

    def f(x, w, n):
        rate = 0.5 * x
        sq = lambda t: rate * t * t

        def term(i):
            return w[i] * sq(math.sin(x * i))

        return sum(term(i) for i in range(n)) + sq(x)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_local_functions_read_the_enclosing_variables(target):
    _, ns = _gradient(LOCAL, "f", ["x", "w"], target)
    f = _primal(LOCAL)["f"]
    w = np.array([0.3, -0.2, 0.5, 0.1])
    d_w = np.zeros(4)
    dx = ns["grad_f"](0.6, w, d_w, 4)
    assert dx == pytest.approx(_central(lambda v: f(v, w, 4), 0.6), rel=1e-6)
    for k in range(4):
        e = np.zeros(4)
        e[k] = 1e-6
        assert d_w[k] == pytest.approx((f(0.6, w + e, 4) - f(0.6, w - e, 4)) / 2e-6, rel=1e-6)


def test_lifted_functions_take_their_captures_first_and_keep_free_names():
    ir = pipeline.ir_text(_source(LOCAL), "prog.py", "f")
    assert "func @sq(%rate: f64, %t: f64)" in ir
    assert "func @term(%x: f64, %w: array<f64,1>, %rate: f64, %i: i64)" in ir  # sq's capture too
    clash = """
        def sq(t):
            return t

        def f(x):
            sq = lambda t: t * t
            return sq(x) + sq(2.0)
    """
    assert "func @f_sq(%t: f64)" in pipeline.ir_text(_source(clash), "prog.py", "f")


def test_a_local_function_calling_itself():
    src = """
        def f(x, n):
            def power(t, k):
                if k == 0:
                    return 1.0
                return t * power(t, k - 1)

            return power(x, n)
    """
    _, ns = _gradient(src, "f", ["x"])
    assert ns["grad_f"](1.3, 4) == pytest.approx(4 * 1.3**3)


def test_a_capture_a_comprehension_also_binds_is_refused():
    src = """
        def f(x, xs):
            v = x * 2.0
            g = lambda t: t * v
            return sum(g(v) for v in xs)
    """
    assert "the local function 'g' reads 'v', which a comprehension of 'f' binds as well" in _refusal(src, "f", ["x"])


def test_max_and_min_of_iterables_tie_to_the_first():
    src = """
        def f(x, c):
            return max(v * c for v in x) + min([c, c * c, 1.0])
    """
    _, ns = _gradient(src, "f", ["x", "c"])
    x = np.array([0.5, 0.9, 0.9, -0.2])  # a tie: the first of the equal items gets the adjoint
    d_x = np.zeros(4)
    dc = ns["grad_f"](x, d_x, 1.0)
    np.testing.assert_array_equal(d_x, [0.0, 1.0, 0.0, 0.0])
    assert dc == pytest.approx(0.9 + 1.0)  # max's item v * c, then min's first tie (c = c * c = 1)


@pytest.mark.parametrize("fn, expected", [("min", 3), ("max", 5)])
def test_min_and_max_of_a_shape_are_an_extent(fn, expected):
    """min(A.shape) is the least extent of A (the diagonal's length), A's rank known from its use."""
    src = f"""
        def f(A):
            s = 0.0
            for i in range({fn}(A.shape)):
                s += A[i % 3, i % 3] ** 2 + A[i % 3, i]
            return s
    """
    text, ns = _gradient(src, "f", ["A"])
    assert f"{fn}(A.shape[0], A.shape[1])" in text
    A = np.arange(15.0).reshape(3, 5) / 10
    d_A = np.zeros((3, 5))
    ns["grad_f"](A, d_A, 1.0)
    want = np.zeros((3, 5))
    for i in range(expected):
        want[i % 3, i % 3] += 2 * A[i % 3, i % 3]
        want[i % 3, i] += 1.0
    np.testing.assert_allclose(d_A, want)


def test_max_with_a_key_is_refused():
    src = """
        def f(x):
            return max(x, key=abs)
    """
    assert "max(..., key=...) is not supported" in _refusal(src, "f", ["x"])


def test_print_and_logging_are_left_out():
    src = """
        import logging
        import math

        logger = logging.getLogger("prog")

        def f(x):
            y = math.exp(x)
            print("y:", y, f"{x:.2f}")
            logger.warning("y=%s", y)
            logging.info("done")
            assert y > 0
            return y * x
    """
    text, ns = _gradient(src, "f", ["x"])
    assert "print" not in text and "logg" not in text
    assert ns["grad_f"](0.3) == pytest.approx(math.exp(0.3) * 1.3)


def test_a_print_of_numpy_queries_is_left_out_and_one_that_moves_a_generator_is_not():
    """``print("shape", np.shape(x))`` only reports (probe round 10: refused, as if np.shape were
    a function of the file); ``np.random.rand()`` moves the generator's state, and ``out=`` writes."""
    src = """
        import numpy as np

        def f(x):
            print("shape", np.shape(x), np.ndim(x), np.round(np.sum(x), 2), np.linalg.norm(x))
            return np.sum(x ** 2)
    """
    text, ns = _gradient(src, "f", ["x"])
    assert "print" not in text
    x, d_x = np.array([0.5, -1.0, 2.0]), np.zeros(3)
    ns["grad_f"](x, d_x)
    np.testing.assert_allclose(d_x, 2 * x)
    for argument in ("np.random.rand()", "np.exp(x, out=x)"):
        moving = f"""
            import numpy as np

            def f(x):
                print({argument})
                return np.sum(x ** 2)
        """
        assert "print(...) is left out of the gradient" in _refusal(moving, "f", ["x"])


@pytest.mark.parametrize("decorator, kind", [
    ('@numba.njit("f8(f8[:], f8[:])")', "vector"),
    ("@numba.jit(float64(float64[:, :], float64[:, :]), nopython=True)", "matrix"),
    ('@numba.njit(["f8(f8[:], f8[:])", "f8(f8[::1], f8[::1])"])', "vector"),
    ('@numba.njit("(f8[:], f8[:])")', "vector"),
])
def test_a_numba_signature_types_the_parameters(decorator, kind):
    src = f"""
        import numba
        import numpy as np
        from numba import float64

        {decorator}
        def f(x, y):
            return np.sum(x * y)
    """
    ir = pipeline.ir_text(_source(src), "prog.py", "f")
    rank = 1 if kind == "vector" else 2
    assert f"func @f(%x: array<f64,{rank}>, %y: array<f64,{rank}>)" in ir
    assert "assumed" not in ir  # stated, as an annotation would: no check at the gradient's entry


def test_numba_signatures_that_disagree_leave_the_parameter_to_inference():
    src = """
        import numba
        import numpy as np

        @numba.njit(["f8(f8[:], i8)", "f8(f8[:, :], i8)"])
        def f(x, n):
            return np.sum(x) * n
    """
    ir = pipeline.ir_text(_source(src), "prog.py", "f")
    assert "%n: i64" in ir and "assumed = {x = 1}" in ir


def test_a_capture_whose_kind_the_local_function_takes_otherwise_is_refused_with_a_hint():
    src = """
        import numpy as np

        def f(x, c):
            y = x * c
            g = lambda t: t * np.sum(y, axis=0)
            return g(c)
    """
    text = _refusal(src, "f", ["c"])
    # The lifted g takes y's kind from its call (a number, as x and c may both be); np.sum(y,
    # axis=0) needs an array. (With y = x * 1.0, x is the one operand that can make y an array,
    # and it is one: py_types.array_use, probe round 8.)
    assert "'y' is not an array" in text and "g = lambda t: t * np.sum(y, axis=0)" in text


def test_a_capture_of_an_annotated_parameter_keeps_its_annotation():
    src = """
        import numpy as np

        def f(x: "f64[n]", c: float):
            g = lambda t: t * np.sum(x * x)
            return g(c)
    """
    _, ns = _gradient(src, "f", ["x", "c"])
    x = np.array([0.5, -1.0, 2.0])
    d_x = np.zeros(3)
    dc = ns["grad_f"](x, d_x, 0.7)
    assert dc == pytest.approx(np.sum(x * x))
    np.testing.assert_allclose(d_x, 2 * 0.7 * x)


# A helper's axis parameter that no call gives (py_default_axes): its default, where an axis is read.
DEFAULT_AXIS = """
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V):
    w = softmax(Q @ K.T / np.sqrt(Q.shape[1]))
    return np.sum((w @ V) ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_an_axis_parameter_no_caller_gives_is_its_default(target):
    from source_gradients import arr, check_source

    check_source(DEFAULT_AXIS, ["Q", "K", "V"], [arr("Q", 3, 2), arr("K", 4, 2), arr("V", 4, 3)], target,
                 func="attention")


# Calls giving the axis as literals (probe kmeans_soft: softmax(-beta * d2, axis=1)): one value
# is read in place; several make an instance per value; a helper passing its own axis on is settled
# first (log_softmax), then its callee.
SEVERAL_AXES = """
import numpy as np


def softmax(z, axis=-1):
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(z, axis=-1):
    return np.log(softmax(z, axis=axis))


def f(Q: "f64[m, n]", K: "f64[p, n]"):
    s = Q @ K.T
    return np.sum(softmax(s) * s) + np.sum(log_softmax(s, axis=0) ** 2) + np.sum(softmax(s, 1) * s[:, :1])
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_axis_literals_given_by_calls_make_an_instance_per_value(target):
    from source_gradients import arr, check_source

    check_source(SEVERAL_AXES, ["Q", "K"], [arr("Q", 3, 2), arr("K", 4, 2)], target)
    from s2sad.pipeline import parse_source

    names = set(parse_source(SEVERAL_AXES, "prog.py", "f").functions)
    assert {"softmax_axism1", "softmax_axis0", "softmax_axis1", "log_softmax"} <= names and "softmax" not in names


@pytest.mark.parametrize("change", ["w = softmax(Q @ K.T / np.sqrt(Q.shape[1]), 0)",
                                    "w = softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=1)"])
def test_an_axis_literal_one_call_gives_is_read_in_place(change):
    from source_gradients import arr, check_source

    source = DEFAULT_AXIS.replace("w = softmax(Q @ K.T / np.sqrt(Q.shape[1]))", change)
    check_source(source, ["Q", "K", "V"], [arr("Q", 3, 2), arr("K", 4, 2), arr("V", 4, 3)], "py",
                 func="attention")


def test_an_axis_a_call_gives_as_a_variable_stays_refused():
    source = DEFAULT_AXIS.replace("def attention(Q, K, V):", "def attention(Q, K, V, a: int):").replace(
        "w = softmax(Q @ K.T / np.sqrt(Q.shape[1]))", "w = softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=a)")
    text = _refusal(source, "attention", ["Q"])
    assert "prog.py:5:35: error: axis= must be an integer literal" in text, text


# A local dict of named values read by its keys (py_dicts): a variable per key (probe model_dict).
NAMED_VALUES = """
import numpy as np


def f(x, w: float, n: int):
    cfg = {"scale": w, "shift": 0.5, "p-1": 2.0}
    s = 0.0
    for i in range(n):
        s += cfg["scale"] * x[i] ** cfg["p-1"] + cfg["shift"] * np.tanh(x[i])
    w = 3.0
    return s * cfg["scale"] + w
"""


@pytest.mark.parametrize("target", ["py", "c"])
def test_a_local_dict_of_named_values_is_a_variable_per_key(target):
    from fd import ParamSpec
    from source_gradients import arr, check_source, num

    params = [arr("x", 5), num("w", 0.5, 2.0), ParamSpec("n", "int", value=5)]
    if target == "py":
        check_source(NAMED_VALUES, ["x", "w"], params, "py")
    else:
        text = pipeline.gradient_source(NAMED_VALUES, "prog.py", "f", ["x", "w"], "c")  # (was refused)
        assert "void grad_f(" in text and "d_x[i] += " in text


@pytest.mark.parametrize("change, message", [
    ('    del cfg["shift"]\n    s = 0.0', "dict literals are not supported"),
    ('    cfg[str(n)] = 1.0\n    s = 0.0', "dict literals are not supported"),
    ("    s = 0.0\n    k = cfg", "dict literals are not supported"),
    ('    s = cfg["nope"]', "dict literals are not supported"),
])
def test_a_dict_used_otherwise_stays_refused(change, message):
    text = _refusal(NAMED_VALUES.replace("    s = 0.0", change, 1), "f", ["x"])
    assert f"prog.py:5:11: error: {message}" in text, text


# A dict filled key by key (py_dicts): each store assigns the key's variable, augmented ones too.
FILLED = """
import numpy as np


def f(x, w):
    d = {}
    d["s"] = w * np.sum(x * x)
    for i in range(3):
        d["s"] += x[i] * i
    d["t"] = np.sin(w)
    d["t"] *= d["s"]
    return d["s"] + d["t"]
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_dict_filled_key_by_key_is_a_variable_per_key(target):
    from source_gradients import arr, check_source, num

    check_source(FILLED, ["x", "w"], [arr("x", 4), num("w", 0.5, 2.0)], target)


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
def test_a_dict_filled_key_by_key_in_c():
    source = FILLED.replace("def f(x, w):", 'def f(x: "f64[n]", w: float, n: int):')
    lib = build(pipeline.gradient_source(_source(source), "prog.py", "f", ["x", "w"], "c"))
    grad = CFunction(lib, "grad_f", ["double *", "double *", "double", "double *", "long", "double"])
    primal = _primal(source)["f"]
    x, w = np.array([0.3, -0.7, 1.1, 0.4]), 0.8
    d_x, d_w = np.zeros(4), Out(0.0)
    grad(x.copy(), d_x, w, d_w, 4, 1.0)
    want_x = [(primal(x + h * e, w, 4) - primal(x - h * e, w, 4)) / (2 * h) for e in np.eye(4) for h in [1e-6]]
    assert np.allclose(d_x, want_x, rtol=1e-6, atol=1e-8)
    assert math.isclose(d_w.value, _central(lambda v: primal(x, v, 4), w), rel_tol=1e-6)


def test_a_key_read_before_any_store_names_the_dict():
    text = _refusal(FILLED.replace('    d["s"] = w', '    d["u"] = d["v"] + w'), "f", ["x"])
    assert "dict literals are not supported" in text, text


# A local tuple read by position (py_tuples): a variable per item; from a display or from a helper
# that returns several values; unpacked, measured with len(), returned.
POSITIONS = """
import math


def pair(a, b):
    return a * b, a - b


def f(x, y):
    t = (x * y, math.exp(y))
    r = pair(t[1], x)
    u, v = t
    s = r[0] * r[-1] + u / v + len(t)
    t = t[1], s
    return t
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_tuple_read_by_position_is_a_variable_per_item(target):
    _, ns = _gradient(POSITIONS, "f", ["x", "y"], target)
    primal = _primal(POSITIONS)["f"]
    x, y, h = 0.7, -0.3, 1e-6
    for seeds in [(1.0, 0.0), (0.0, 1.0), (0.4, -1.3)]:
        def j(x, y):
            a, b = primal(x, y)
            return seeds[0] * a + seeds[1] * b
        got = ns["grad_f"](x, y, seeds)
        want = ((j(x + h, y) - j(x - h, y)) / (2 * h), (j(x, y + h) - j(x, y - h)) / (2 * h))
        assert np.allclose(got, want, rtol=1e-6, atol=1e-8), (got, want)


@pytest.mark.skipif(not have_gcc(), reason="gcc not available")
def test_a_tuple_read_by_position_in_c():
    one = POSITIONS.replace("    return t\n", "    return t[0] * t[1]\n")
    one = one.replace("def f(x, y):", "def f(x: float, y: float):")
    lib = build(pipeline.gradient_source(_source(one), "prog.py", "f", ["x", "y"], "c"))
    grad = CFunction(lib, "grad_f", ["double", "double *", "double", "double *", "double"])
    primal = _primal(one)["f"]
    d_x, d_y = Out(0.0), Out(0.0)
    grad(0.7, d_x, -0.3, d_y, 1.0)
    assert math.isclose(d_x.value, _central(lambda v: primal(v, -0.3), 0.7), rel_tol=1e-6)
    assert math.isclose(d_y.value, _central(lambda v: primal(0.7, v), -0.3), rel_tol=1e-6)


@pytest.mark.parametrize("change", [
    "    t[0] = 1.0\n    r = pair(t[1], x)",  # a store into a tuple: Python's TypeError
    "    r = pair(t, x)",  # the tuple passed on
    "    r = pair(t[2], x)",  # past its end: Python's IndexError
])
def test_a_tuple_used_otherwise_stays_refused(change):
    text = _refusal(POSITIONS.replace("    r = pair(t[1], x)", change, 1), "f", ["x"])
    assert "error:" in text and "Traceback" not in text, text


# np.array of nested lists of numbers (py_lists.nested): an array of as many axes, filled in order.
NESTED = """
import numpy as np


def det2(x):
    A = np.array([[x, 1.0], [2.0, x * x]])
    return np.linalg.det(A)


def deep(x, y):
    T = np.array([[[x, y], [x * y, 1.0]], [[2.0, y * y], [np.sin(x), 3.0]]])
    return np.sum(T * T) + T[1, 1, 0]


def named(x, y):
    rows = [[x, y], [y, 2.0 * x]]
    return np.sum(np.array(rows) @ np.array([x, 1.0]))
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("func, wrt", [("det2", ["x"]), ("deep", ["x", "y"]), ("named", ["x", "y"])])
def test_np_array_of_nested_lists_is_an_array_of_their_rows(func, wrt, target):
    from source_gradients import check_source, num

    params = [num("x", 0.5, 1.5), num("y", -1.0, -0.3)][:len(wrt)]
    check_source(NESTED, wrt, params, target, func=func)


def test_np_array_of_ragged_lists_is_refused_at_the_short_row():
    text = _refusal(NESTED.replace("[2.0, x * x]", "[2.0]"), "det2", ["x"])
    assert "prog.py:5:29: error: the rows of a nested list must have one length" in text, text


# A loop over a literal list of values (py_unroll): the body once per item, each pass binding the
# target as Python does; a local naming parameters (W = W1) passes their uses on to them (probe
# mlp_list: layers of different shapes, no annotation).
LITERAL_LOOPS = """
import numpy as np


def f(W1, b1, W2, b2, x, a: float):
    h = x
    for W, b in [(W1, b1), (W2, b2)]:
        h = np.tanh(W @ h + b)
    s = 0.0
    for c in (a, 2.0): s += c * np.sum(h ** 2)
    return s
"""


@pytest.mark.parametrize("target", ["py"])
def test_a_loop_over_a_literal_list_runs_its_body_once_per_item(target):
    from source_gradients import arr, check_source, num

    params = [arr("W1", 4, 3), arr("b1", 4), arr("W2", 2, 4), arr("b2", 2), arr("x", 3), num("a", 0.5, 2.0)]
    text = check_source(LITERAL_LOOPS, ["W1", "b1", "W2", "b2", "x", "a"], params, target)
    assert "W1 must be a 2-D array" in text  # the ranks from use are guesses, checked


AXIS_LOOP = """
import numpy as np


def f(u: "f64[n, n]"):
    s = 0.0
    for axis in (0, 1):
        s += np.sum((np.roll(u, -1, axis=axis) - u) ** 2) + np.sum(np.mean(u, axis=axis) ** 2)
    return s
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_a_loop_variable_named_as_a_keyword_leaves_the_keyword(target, tmp_path, capsys):
    # (probe round 9: axis=axis became 0=axis in the unrolled pass: "np.roll() with 0= is not supported")
    from source_gradients import check_command

    check_command(tmp_path, capsys, AXIS_LOOP, "f", "u", "u=4x4", target)


FLOAT_DTYPES = """
import numpy as np


def f(x: "f64[n]"):
    y = np.zeros(len(x), dtype=float)
    y[:] = np.asarray(x, dtype=np.float64) * 2.0
    z = np.array(y, dtype="f8") + np.ones(len(x), dtype=np.double)
    w = np.array([1, 2, 3], dtype=float)  # (doubles of integers: an element may take a float)
    w[0] = 0.5 * x[0]
    return np.sum(z ** 2) + np.sum(w * w)
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_a_dtype_of_doubles_says_nothing(target, tmp_path, capsys):
    # (probe round 9: "np.asarray() with dtype= is not supported", with the hint to pass it by position)
    from source_gradients import check_command

    check_command(tmp_path, capsys, FLOAT_DTYPES, "f", "x", "x=4", target)


KEPT_AXIS_OF_A_VECTOR = """
import numpy as np


def f(x: "f64[n]"):
    return np.sum(x / np.sum(x**2, keepdims=True)) + np.sum(x * np.sum(x, axis=0, keepdims=True))
"""


@pytest.mark.parametrize("target", ["numba", "py"])
def test_a_vector_reduced_with_its_axis_kept(target, tmp_path, capsys):
    # (probe round 9: Numba's sum of a vector is a number, and np.expand_dims of it did not compile)
    from source_gradients import check_command

    check_command(tmp_path, capsys, KEPT_AXIS_OF_A_VECTOR, "f", "x", "x=4", target)


# Rebound in a loop to a value of evident extents (probe round 9: refused, "'P' is rebound in a loop,
# and this value's shape is not evidently the shape 'P' has before the loop"): an allocation sized
# by an array whose extents are several known equal (P0 + np.eye(P0.shape[0]): the copy the loop
# fills is sized by it), and an einsum's result (the extents of its letters' operand axes).
REBOUND_EVIDENTLY = """
import numpy as np


def kalman(F: "f64[d, d]", P0: "f64[d, d]", steps: int):
    P = P0 + np.eye(P0.shape[0])
    for t in range(steps):
        P = F @ P @ F.T + 0.1 * np.eye(P0.shape[0])
    return np.sum(P)


def leapfrog(a0: "f64[n]", b0: "f64[n]", steps: int):
    a = a0.copy()
    b = b0.copy()
    for s in range(steps):
        b = b + np.sin(a)
        a = a + b
    return np.sum(a * a)


def rnn(Wh: "f64[n, n]", Wx: "f64[n, m]", xs: "f64[k, m]", h0: "f64[n]"):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(Wh @ h + Wx @ xs[t])
    return np.sum(h)


def norms(p0: "f64[n, n]", dt: float, steps: int):
    p = p0.copy()
    a = np.einsum("ij,ij->i", p, p)
    for _ in range(steps):
        p += dt * a[:, None]
        a = np.einsum("ij,ij->i", p, p)
    return np.sum(p**2)
"""


@pytest.mark.parametrize("func, wrt, sizes, target", [
    ("kalman", "F,P0", "F=3x3,P0=3x3,steps=3", "py"), ("kalman", "F,P0", "F=3x3,P0=3x3,steps=3", "numba"),
    ("norms", "p0", "p0=4x4,steps=3", "py"), ("norms", "p0", "p0=4x4,steps=3", "numba"),
    # (C output: one annotation symbol, n, is one extent; refused as extents a C caller's arrays
    # do not let the gradient check)
    ("leapfrog", "a0,b0", "a0=4,b0=4,steps=3", "c"), ("leapfrog", "a0,b0", "a0=4,b0=4,steps=3", "py"),
    ("rnn", "Wh,Wx,h0", "Wh=3x3,Wx=3x2,xs=4x2,h0=3", "c"),
])
def test_an_array_rebound_to_a_value_of_evident_extents(func, wrt, sizes, target, tmp_path, capsys):
    from source_gradients import check_command

    check_command(tmp_path, capsys, REBOUND_EVIDENTLY, func, wrt, sizes, target, extra=("--range", "0,0.5"))


SUMS_OVER_LITERALS = """
import numpy as np


def f(a: "f64[n]", b: "f64[n, n]", c: float):
    reg = sum(np.sum(M**2) for M in (a, b, c))
    return reg + sum([np.sum(np.tanh(M)) for M in [a, b]]) + sum(w * np.sum(M) for w, M in [(0.5, a), (2.0, b)])
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_a_sum_over_a_literal_list_adds_one_term_per_item(target, tmp_path, capsys):
    # (a regularizer over the weights, sum(np.sum(W ** 2) for W in (W1, W2)), was refused: arrays of
    # different shapes are no list s2sad holds; as the for loop over them, it is unrolled)
    from source_gradients import check_command

    check_command(tmp_path, capsys, SUMS_OVER_LITERALS, "f", "a,b,c", "a=3,b=3x3", target)


@pytest.mark.parametrize("loop", [
    "for W, b in [(W1, b1), (W2, b2)]:\n        W2 = W1\n        h = np.tanh(W @ h + b)",  # an item the body assigns
    "for W, b in [(W1, b1), (W2, b2)]:\n        h = np.tanh(W @ h + b)\n        break",
    "for W, b in [(W1, b1), (W2, b2)]:\n        h = np.tanh(W @ h + b)\n    else:\n        h = h",
])
def test_a_loop_over_a_literal_list_that_unrolling_would_change_stays_a_loop(loop):
    source = LITERAL_LOOPS.replace("for W, b in [(W1, b1), (W2, b2)]:\n        h = np.tanh(W @ h + b)", loop)
    with pytest.raises(DiagnosticError):
        pipeline.gradient_source(source, "prog.py", "f", ["W1"], "py")


# Unpacking an array (x, y = state): its items, where their number is certain: an evident length,
# or a parameter's length, checked on the gradient's entry (the primal raises for another).
UNPACKED = """
import numpy as np


def f(state, A: "f64[2, n]", a: float, b: float):
    x, y = state
    u, v = A
    s = np.array([a, b, a * b])
    p, q, r = s
    return (a * x - b * x * y) ** 2 + np.sum(u * v) * y + p * q + r
"""


def test_an_array_unpacked_gives_its_items_and_its_length_is_checked():
    from source_gradients import arr, check_source, num

    params = [arr("state", 2), arr("A", 2, 3), num("a", 0.5, 2.0), num("b", 0.5, 2.0)]
    text = check_source(UNPACKED, ["state", "A", "a", "b"], params, "py")
    assert "state.shape[0] must equal 2 in f (line 6 unpacks it into 2 names)" in text
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    with pytest.raises(ValueError, match="must equal 2"):
        namespace["grad_f"](np.ones(3), np.zeros(3), np.ones((2, 3)), np.zeros((2, 3)), 1.0, 1.0)
    with pytest.raises(DiagnosticError, match="a C caller's arrays do not let the gradient check") as refused:
        pipeline.gradient_source(UNPACKED, "prog.py", "f", ["state"], "c")
    # the hint names the annotation the next test shows C output takes
    assert refused.value.diagnostics[0].hint.endswith('or annotate state: "f64[2]"')


def test_an_array_unpacked_whose_length_is_annotated_takes_c_output(tmp_path, capsys):
    """Its length annotated, as a C declaration gives it (probe round 8: refused all the same)."""
    from source_gradients import check_command

    annotated = UNPACKED.replace("def f(state,", 'def f(state: "f64[2]",')
    check_command(tmp_path, capsys, annotated, "f", "state,A,a,b", "A=2x3", "c")


# A helper's arrays seen from its callers (py_helper_shapes): the extents of what it returns (a
# state rebound in a loop to step(state), evidently of its shape) and what it assumes of its
# parameters (a helper that unpacks one: each call shows the length, or passes the need on).
HELPER_SHAPES = """
import numpy as np


def rhs(state, a, b):
    x, y = state
    return np.array([a * x - b * x * y, x * y - b * y])


def step(s, a, b, dt):
    return s + dt * rhs(s, a, b)


def f(s0, a, b, dt=0.05, n=12):
    s = s0.copy()
    for _ in range(n):
        s = step(s, a, b, dt)
    return np.sum(s * s)


def g(a, b, x0=1.0, y0=0.5):
    state = np.array([x0, y0])
    for _ in range(10):
        state = state + 0.02 * rhs(state, a, b)
    return state[0] + state[1]
"""


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("level", [0, 2])
def test_a_helpers_array_result_and_unpacked_parameter_are_known_to_its_callers(target, level):
    from source_gradients import arr, check_source, num

    nums = [num("a", 0.5, 1.5), num("b", 0.2, 0.8)]
    text = check_source(HELPER_SHAPES, ["s0", "a", "b"], [arr("s0", 2)] + nums, target, level)
    assert "s0.shape[0] must equal 2 in f (line 6 of 'rhs' unpacks it into 2 names)" in text
    assert text.count("must equal 2") == 1, text  # once, though two facts need it
    check_source(HELPER_SHAPES, ["a", "b"], nums, target, level, func="g")
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    with pytest.raises(ValueError, match="must equal 2"):
        namespace["grad_f"](np.ones(3), np.zeros(3), 1.0, 0.5)


# A helper that rebinds an array in a loop to a value made from two parameters' extents (v = v - 0.1 *
# x): its callers show they are equal, pass it on to the gradient's entry check, or check it where
# the call runs (probe round 8: refused in a helper, accepted as the function differentiated).
REBINDING_HELPER = """
import numpy as np


def simulate(x0, v0, steps):
    x = x0.copy()
    v = v0.copy()
    for _ in range(steps):
        v = v - 0.1 * x
        x = x + 0.1 * v
    return np.sum(x ** 2)


def loss(x0, v0, steps: int):
    return simulate(x0, v0, steps)


def made(a: float, n: int, m: int):
    return simulate(a * np.ones(n), np.ones(m), 3)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_helper_that_rebinds_an_array_of_two_parameters_extents_in_a_loop(target):
    from source_gradients import arr, check_source, count

    text = check_source(REBINDING_HELPER, ["x0", "v0"], [arr("x0", 4), arr("v0", 4), count("steps", 3)],
                        target, func="loss")
    message = "v0.shape[0] must equal x0.shape[0] in loss (line 9 of 'simulate' rebinds 'v' in a loop"
    assert message in text, text
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    with pytest.raises(ValueError, match="must equal"):
        namespace["grad_loss"](np.ones(4), np.zeros(4), np.ones(3), np.zeros(3), 2)
    made = pipeline.gradient_source(REBINDING_HELPER, "prog.py", "made", ["a"], target)
    namespace = {}
    exec(compile(made, "<grad>", "exec"), namespace)
    primal: dict = {}
    exec(compile(REBINDING_HELPER, "<primal>", "exec"), primal)
    h = 1e-6
    central = (primal["made"](0.5 + h, 4, 4) - primal["made"](0.5 - h, 4, 4)) / (2 * h)
    assert namespace["grad_made"](0.5, 4, 4) == pytest.approx(central, rel=1e-6)
    with pytest.raises(ValueError, match="'simulate' takes 'v0' to be as long as 'x0'"):
        namespace["grad_made"](0.5, 4, 3)


@pytest.mark.parametrize("call, message", [
    ("rhs(np.array([a, b, 1.0]), a, b)", "'rhs' takes its parameter 'state' to be 2 long (line 5 of 'rhs' unpacks "
     "it into 2 names), and this array has 3 items, not 2"),
])
def test_a_call_that_cannot_show_what_a_helper_unpacks_is_a_located_error(call, message):
    source = HELPER_SHAPES + f"\n\ndef h(v, a, b):\n    return np.sum({call})\n"
    text = _refusal(source, "h", ["a"])
    assert message in text and "prog.py:28:23: error:" in text, text  # (_source drops the first line)


def test_a_call_whose_length_a_helper_unpacks_is_not_evident_is_checked_before_it():
    """``rhs(v[1:], ...)``: v's length is v's, not evidently 3 (it was a located error): the
    gradient checks the part is 2 long where the call is, raising ValueError as rhs would."""
    source = HELPER_SHAPES + "\n\ndef h(v, a, b):\n    return np.sum(rhs(v[1:], a, b))\n"
    text = pipeline.gradient_source(source, "prog.py", "h", ["v", "a"], "py")
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    grad = namespace["grad_h"]
    d_v = np.zeros(3)
    grad(np.array([0.3, 0.5, 0.7]), d_v, 1.0, 0.5)
    with pytest.raises(ValueError, match="'rhs' takes its parameter 'state' to be 2 long"):
        grad(np.ones(4), np.zeros(4), 1.0, 0.5)


@pytest.mark.parametrize("change, message", [
    ("    p, q = s", "cannot unpack 's', of 3 items, into 2 names (Python raises ValueError)"),
])
def test_an_array_of_another_evident_length_unpacked_is_a_located_error(change, message):
    text = _refusal(UNPACKED.replace("    p, q, r = s", change).replace("+ p * q + r", "+ p * q"), "f", ["a"])
    assert message in text, text


# A local has one rank wherever it is assigned: vel = vel0.copy(), then vel = vel + dt * a with
# a = forces(pos, mass) / mass[:, None], two axes, makes vel0 two-axis too (it was guessed a
# vector and the rebinding refused); mass[:, None]'s extents are mass's and 1, the 1 stretching.
VERLET = """
import numpy as np


def forces(pos, mass):
    n = pos.shape[0]
    F = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                d = pos[j] - pos[i]
                r3 = np.sum(d * d) ** 1.5
                F[i] += mass[i] * mass[j] * d / r3
    return F


def verlet(pos0, vel0, mass, dt=0.01, nsteps=4):
    pos = pos0.copy()
    vel = vel0.copy()
    for _ in range(nsteps):
        a = forces(pos, mass) / mass[:, None]
        vel = vel + dt * a
        pos = pos + dt * vel
    return np.sum(pos ** 2)
"""


@pytest.mark.parametrize("level", [0, 2])
def test_a_locals_rank_from_one_of_its_values_reaches_the_parameter_it_copies(level):
    from source_gradients import arr, check_source

    rng = np.random.default_rng(5)
    pos0 = rng.normal(size=(4, 3)) + np.arange(4)[:, None] * 2.0  # particles apart
    params = [arr("pos0", 4, 3), arr("vel0", 4, 3), arr("mass", 4)]
    text = check_source(VERLET, ["pos0", "vel0"], params, "py", level, func="verlet")
    assert "vel0 must be a 2-D array" in text and "mass.shape[0] must equal" in text
    namespace: dict = {}
    exec(compile(text, "<grad>", "exec"), namespace)
    d_pos0, d_vel0 = np.zeros((4, 3)), np.zeros((4, 3))
    namespace["grad_verlet"](pos0, d_pos0, rng.normal(size=(4, 3)), d_vel0, rng.uniform(1, 2, 4))
    assert np.all(np.isfinite(d_pos0)) and np.any(d_vel0 != 0.0)


# cov = centered.T @ centered / (A.shape[0] - 1) needs two axes (np.trace), which reach A through
# centered = A - col_means, col_means = A.mean(axis=0) being a part of A (A.shape[0] - 1 is a
# number, not a candidate array).
COLUMN_OPS = """
import numpy as np


def column_ops(A):
    col_means = A.mean(axis=0)
    centered = A - col_means
    cov = centered.T @ centered / (A.shape[0] - 1)
    return np.trace(cov) + np.sum(cov ** 2)
"""


def test_a_need_for_two_axes_reaches_a_parameter_through_its_centred_copy():
    from source_gradients import arr, check_source

    text = check_source(COLUMN_OPS, ["A"], [arr("A", 5, 3)], "py", func="column_ops")
    assert "A must be a 2-D array" in text


def test_numpy_sum_of_a_generator_names_the_import():
    source = "from numpy import sum\n\n\ndef f(x):\n    return sum(v * v for v in x)\n"
    text = _refusal(source, "f", ["x"])
    assert "'sum' here is numpy.sum, which takes no generator expression" in text
    assert "builtins.sum(...)" in text


def test_an_array_centred_along_an_axis_is_guessed_to_have_another():
    """X - X.mean(axis=0): a vector would be centred with X.mean(); the guess, a matrix, is checked."""
    source = ("import numpy as np\n\n\ndef f(X, gamma):\n    mu = X.mean(axis=0)\n"
              "    return np.sum(gamma * (X - mu) ** 3)\n")
    from source_gradients import arr, check_source

    text = check_source(source, ["X"], [arr("X", 5, 3), arr("gamma", 3)], "py")
    assert "X must be a 2-D array" in text


# Probe p07: a helper returning an array with a parameter that has a default: its gradient takes
# d_return keyword-only (after the default), and its caller passed it by position (TypeError).
DEFAULTED_HELPER = """
import numpy as np


def shift(x, c=0.0):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] + c
    return out


def f(x, c):
    return np.sum(shift(x, c) ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_helper_gradient_is_called_with_its_keyword_only_seed_by_keyword(target):
    from source_gradients import arr, check_source, num

    text = check_source(DEFAULTED_HELPER, ["x", "c"], [arr("x", 4), num("c", -1.0, 1.0)], target)
    if target == "py":
        assert "grad_shift(x, d_x, c, d_return=" in text, text


# Probes (ordinary NumPy): unpacking an elementwise value, a norm kept along an axis, a boolean
# identity as a mask.
IDIOMS = {
    "unpack_exp": ("""import numpy as np


def f(theta):
    a, b = np.exp(theta)
    return a * b + np.sin(a)
""", ["theta"], [(2,)]),
    "norm_keepdims": ("""import numpy as np


def f(z):
    u = z / np.linalg.norm(z, axis=1, keepdims=True)
    return np.sum(u[:, 0] * np.arange(u.shape[0]))
""", ["z"], [(4, 3)]),
    "diagonal": ("""import numpy as np


def f(A):
    L = np.linalg.cholesky(A @ A.T + np.eye(A.shape[0]))
    return np.sum(np.log(np.diagonal(L))) + np.sum(np.diagonal(A) ** 2)
""", ["A"], [(3, 3)]),
    "eye_mask": ("""import numpy as np


def f(X):
    n = X.shape[0]
    mask = ~np.eye(n, dtype=bool)
    diagonal = np.eye(n, dtype=bool)
    return np.sum(X[mask] ** 2) + np.sum(X[diagonal])
""", ["X"], [(3, 3)]),
}


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("name", list(IDIOMS))
def test_numpy_idioms_of_the_probes(name, target):
    from source_gradients import arr, check_source

    source, wrt, shapes = IDIOMS[name]
    if target == "numba" and name == "eye_mask":
        pytest.skip("Numba output refuses a mask of two axes (README)")
    check_source(source, wrt, [arr(w, *shape) for w, shape in zip(wrt, shapes)], target)


# Probe p04: a list of weight matrices named, then looped over; products h @ W of an unrolled
# local naming parameters (W = W1) take the guess of those parameters (a matrix on the right).
NAMED_LAYERS = """
import numpy as np


def f(x, W1, b1, W2, b2):
    layers = [(W1, b1), (W2, b2)]
    h = x
    for W, b in layers:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_named_list_of_layers_is_unrolled_where_it_is_looped_over(target):
    from source_gradients import arr, check_source

    params = [arr("x", 3), arr("W1", 3, 4), arr("b1", 4), arr("W2", 4, 2), arr("b2", 2)]
    source = NAMED_LAYERS if target == "py" else NAMED_LAYERS.replace(  # (Numba guesses biases numbers)
        "def f(x, W1, b1, W2, b2):", 'def f(x, W1, b1: "f64[m]", W2, b2: "f64[k]"):')
    text = check_source(source, ["W1", "b1", "W2", "b2"], params, target)
    assert "layers" not in text.split('"""')[-1], text


def test_a_named_list_read_otherwise_stays_refused():
    text = _refusal(NAMED_LAYERS.replace("    h = x\n", "    h = x\n    layers.reverse()\n"), "f", ["W1"])
    assert "error:" in text, text


# Probe p04: weights and biases in two named lists, zipped and enumerated; the index decides an
# if (no activation after the last layer) and len() counts a list: each pass straight-line code.
ZIPPED_LAYERS = """
import numpy as np


def relu(x):
    return np.maximum(0, x)


def f(X, y, W1, b1, W2, b2, W3, b3):
    weights = [W1, W2, W3]
    biases = [b1, b2, b3]
    h = X
    for i, (W, b) in enumerate(zip(weights, biases)):
        h = h @ W + b
        if i < len(weights) - 1:
            h = relu(h)
        elif i == 2:
            h = h * 1.5
        else:
            h = h * 0.0
    return np.mean((h[:, 0] - y) ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_zipped_and_enumerated_named_lists_are_unrolled(target):
    from source_gradients import arr, check_source

    params = [arr("X", 5, 3), arr("y", 5), arr("W1", 3, 4), arr("b1", 4), arr("W2", 4, 4), arr("b2", 4),
              arr("W3", 4, 2), arr("b3", 2)]
    source = ZIPPED_LAYERS
    if target == "numba":  # (Numba guesses biases and targets numbers)
        source = source.replace("def f(X, y, W1, b1, W2, b2, W3, b3):",
                                'def f(X, y: "f64[n]", W1, b1: "f64[a]", W2, b2: "f64[b]", W3, b3: "f64[c]"):')
    text = check_source(source, ["W1", "b1", "W2", "b3"], params, target)
    body = text.split('"""')[-1]
    assert "weights" not in body and "enumerate" not in body and "h * 0.0" not in body, text


# Probe p05 (its body in place): a named list of layers read by a constant part (params[:-1]) and a
# constant index (params[-1]), and the output raveled.
PARTS_OF_NAMED_LAYERS = """
import numpy as np


def f(W1, b1, W2, b2, X: "f64[n, d]", y):
    params = [(W1, b1), (W2, b2)]
    h = X
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    out = h @ W + b
    return np.mean((out.ravel() - y) ** 2) + np.sum(np.ravel(W1) * 0.1) + np.sum(h.flatten() ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_constant_parts_and_items_of_a_named_list_and_ravel(target):
    from source_gradients import arr, check_source

    params = [arr("W1", 3, 4), arr("b1", 4), arr("W2", 4, 1), arr("b2", 1), arr("X", 5, 3), arr("y", 5)]
    source = PARTS_OF_NAMED_LAYERS
    if target == "numba":  # (Numba guesses biases and targets numbers)
        source = source.replace('def f(W1, b1, W2, b2, X: "f64[n, d]", y):',
                                'def f(W1, b1: "f64[a]", W2, b2: "f64[c]", X: "f64[n, d]", y: "f64[n]"):')
    text = check_source(source, ["W1", "b1", "W2", "b2"], params, target)
    assert "params" not in text.split('"""')[-1], text


# Probe p05: the named list of layers handed to the function that runs them (py_list_args): the
# helper takes the items, every call passing a list of the same shape.
LAYERS_TO_HELPER = """
import numpy as np


def forward(params, X):
    h = X
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def penalty(weights, scale):
    s = 0.0
    for W in weights:
        s += scale * np.sum(W * W)
    return s


def f(W1, b1, W2, b2, X: "f64[n, d]", y):
    params = [(W1, b1), (W2, b2)]
    weights = [W1, W2]
    others = [W2, W1]
    out = forward(params, X)
    return np.mean((out.ravel() - y) ** 2) + penalty(weights, 0.01) + penalty(others, 0.02)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_named_list_passed_to_a_helper_is_its_items(target):
    from source_gradients import arr, check_source

    params = [arr("W1", 3, 4), arr("b1", 4), arr("W2", 4, 1), arr("b2", 1), arr("X", 5, 3), arr("y", 5)]
    source = LAYERS_TO_HELPER
    if target == "numba":  # (Numba guesses biases and targets numbers)
        source = source.replace('def f(W1, b1, W2, b2, X: "f64[n, d]", y):',
                                'def f(W1, b1: "f64[a]", W2, b2: "f64[c]", X: "f64[n, d]", y: "f64[n]"):')
    text = check_source(source, ["W1", "b1", "W2", "b2"], params, target)
    assert "params" not in text.split("def grad_f")[-1].split('"""')[-1], text


PACKED = """
import numpy as np


def leaky(z, alpha=0.01):
    return np.where(z > 0, z, alpha * z)


def mlp(params, X):
    W1, b1, W2, b2 = params
    h = leaky(X @ W1 + b1)
    return h @ W2 + b2


def f(W1, b1, W2, b2, X: "f64[n, d]", y):
    pred = mlp({packed}, X)
    return ((pred - y) ** 2).mean()
"""


@pytest.mark.parametrize("packed", ["(W1, b1, W2, b2)", "[W1, b1, W2, b2]", "params", "W1, b1, W2, b2"])
def test_parameters_packed_for_a_helper_that_unpacks_them(packed):
    # JAX-style: the helper takes one tuple of parameters and unpacks it. The bias b2 reaches NumPy
    # only in the helper, through its tuple: it is guessed as the helper's instance guesses it
    # (shape-generic here), never taken for a number whose adjoint would be a sum (a vector b2 once
    # got one number back: the caller read the helper's own signature, where h was a number).
    from source_gradients import arr, check_source

    source = PACKED.format(packed=packed if packed != "params" else "params")
    if packed == "params":
        source = source.replace("    pred = mlp(params, X)", "    params = (W1, b1, W2, b2)\n    pred = mlp(params, X)")
    if packed == "W1, b1, W2, b2":  # no packing: the helper's parameters are renamed by a tuple assignment
        source = source.replace("def mlp(params, X):\n    W1, b1, W2, b2 = params",
                                "def mlp(p0, p1, p2, p3, X):\n    W1, b1, W2, b2 = p0, p1, p2, p3")
    params = [arr("W1", 3, 4), arr("b1", 4), arr("W2", 4, 2), arr("b2", 2), arr("X", 5, 3), arr("y", 5, 2)]
    text = check_source(source, ["W1", "b1", "W2", "b2"], params)
    assert "def grad_f(W1, d_W1, b1, d_b1, W2, d_W2, b2, d_b2, X, y, d_return=1.0):" in text


def test_a_named_list_a_helper_reads_otherwise_stays_refused():
    source = LAYERS_TO_HELPER.replace("    for W in weights:\n", "    weights.reverse()\n    for W in weights:\n")
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(source, "t.py", "f", ["W1"], "py")
    assert e.value.diagnostics[0].loc.line >= 15, e.value


# Input checks as code writes them: where the primal raises, the gradient stops too.
RAISES = """
import numpy as np


def check_rows(X, y):
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows and y {y.shape[0]}")


def f(w, X: "f64[n, d]", y, lam):
    if lam < 0:
        raise ValueError("lam must be non-negative")
    check_rows(X, y)
    r = X @ w - y
    if np.sum(r * r) > 1e6:
        raise np.linalg.LinAlgError("diverged")
    return np.sum(r * r) + lam * np.sum(w * w)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_raise_stops_the_gradient_where_it_stops_the_primal(target):
    from source_gradients import arr, check_source, load, num

    params = [arr("w", 3), arr("X", 5, 3), arr("y", 5), num("lam", 0.1, 0.5)]
    source = RAISES.replace("y, lam):", 'y: "f64[n]", lam):') if target == "numba" else RAISES
    text = check_source(source, ["w", "lam"], params, target)
    assert 'raise ValueError("lam must be non-negative")' in text, text
    grad = load(text, "<grad f>")["grad_f"]
    grad = grad.py_func if target == "numba" else grad
    X, w, y = np.ones((5, 3)), np.ones(3), np.ones(5)
    with pytest.raises(ValueError, match="lam must be non-negative"):
        grad(w, np.zeros(3), X, y, -1.0)
    with pytest.raises(ValueError, match="raise ValueError"):
        grad(w, np.zeros(3), X, np.ones(4), 1.0)
    with pytest.raises(RuntimeError, match="diverged"):  # a library's exception: RuntimeError
        grad(w * 1e4, np.zeros(3), X, y, 1.0)


def test_a_raise_in_c_output_exits_and_a_bare_raise_is_located():
    source = RAISES.replace("def f(w, X", 'def f(w: "f64[d]", X').replace("y, lam):", 'y: "f64[n]", lam):')
    text = pipeline.gradient_source(source, "t.py", "f", ["w", "lam"], "c")
    assert "exit(1);" in text and 'raise ValueError("lam must be non-negative"): the program stops' in text, text
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(RAISES.replace('raise ValueError("lam must be non-negative")', "raise"),
                                 "t.py", "f", ["w"], "py")
    d = e.value.diagnostics[0]
    assert "bare 'raise'" in d.message and (d.loc.line, d.loc.col) == (12, 9), d


UNPACK_A_PART = """
def f(a, x: "f64[n]", k: int):
    part = x[k:]
    u, v = part
    return a * u * v
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_unpacking_an_array_of_no_evident_length_is_checked_where_it_is_unpacked(target):
    from fd import ParamSpec
    from source_gradients import arr, check_source, load, num

    params = [num("a", 0.5, 1.5), arr("x", 4), ParamSpec("k", "int", value=2)]
    text = check_source(UNPACK_A_PART, ["a", "x"], params, target)
    grad = load(text, "<grad f>")["grad_f"]
    grad = grad.py_func if target == "numba" else grad
    with pytest.raises(ValueError, match="part unpacked into 2 names"):  # as Python: too many values
        grad(1.0, np.ones(4), np.zeros(4), 1)


# Probe p19 without its list: a helper unpacks its parameter (x, y = state), and the state the
# function differentiated passes is rebound in a loop (its length not evident): checked before
# each call, raising ValueError as the helper's unpacking would.
RK4_UNPACKED_STATE = """
import numpy as np


def lotka_volterra(state, alpha, beta, delta, gamma):
    x, y = state
    return np.array([alpha * x - beta * x * y, delta * x * y - gamma * y])


def rk4_step(f, state, dt, *args):
    k1 = f(state, *args)
    k2 = f(state + 0.5 * dt * k1, *args)
    k3 = f(state + 0.5 * dt * k2, *args)
    k4 = f(state + dt * k3, *args)
    return state + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def f(alpha, beta, delta, gamma, x0, y0, obs: "f64[m, 2]"):
    state = np.array([x0, y0])
    loss = 0.0
    for i in range(len(obs)):
        state = rk4_step(lotka_volterra, state, 0.1, alpha, beta, delta, gamma)
        loss += np.sum((state - obs[i]) ** 2)
    return loss
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_helper_unpacking_an_array_its_caller_rebinds_is_checked_at_the_call(target):
    from source_gradients import arr, check_source, num

    params = [num("alpha", 1.0, 1.2), num("beta", 0.3, 0.5), num("delta", 0.05, 0.15), num("gamma", 0.3, 0.5),
              num("x0", 0.8, 1.2), num("y0", 0.4, 0.6), arr("obs", 4, 2)]
    text = check_source(RK4_UNPACKED_STATE, ["alpha", "beta", "delta", "gamma", "x0", "y0"], params, target)
    assert "to be 2 long" in text, text


# Probe p19 as written (obs annotated: nothing else shows it is a matrix): the trajectory list
# starts with the state and appends the state each step, the state only rebound (a new array from
# rk4_step each time, never written through), so appending it needs no copy of the user's.
RK4_TRAJECTORY = RK4_UNPACKED_STATE.replace("""    loss = 0.0
    for i in range(len(obs)):
        state = rk4_step(lotka_volterra, state, 0.1, alpha, beta, delta, gamma)
        loss += np.sum((state - obs[i]) ** 2)
    return loss""", """    traj = [state]
    for i in range(len(obs) - 1):
        state = rk4_step(lotka_volterra, state, 0.1, alpha, beta, delta, gamma)
        traj.append(state)
    traj = np.array(traj)
    return np.sum((traj - obs) ** 2)""")


@pytest.mark.parametrize("target", ["py", "numba"])
def test_appending_an_array_that_is_only_rebound_needs_no_copy(target):
    from source_gradients import arr, check_source, num

    assert "traj.append(state)" in RK4_TRAJECTORY
    params = [num("alpha", 1.0, 1.2), num("beta", 0.3, 0.5), num("delta", 0.05, 0.15), num("gamma", 0.3, 0.5),
              num("x0", 0.8, 1.2), num("y0", 0.4, 0.6), arr("obs", 4, 2)]
    check_source(RK4_TRAJECTORY, ["alpha", "beta", "delta", "gamma", "x0", "y0"], params, target)


@pytest.mark.parametrize("write", ["        state[0] = 0.5 * state[0]\n", "        state *= 0.99\n",
                                   "        other = state\n        other[1] = 0.0\n"])
def test_appending_an_array_written_through_later_stays_refused(write):
    source = RK4_TRAJECTORY.replace("        traj.append(state)\n", "        traj.append(state)\n" + write)
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(source, "t.py", "f", ["alpha"], "py")
    assert "puts that very array in the list" in str(e.value), e.value


# Probe p31: a local dict of named values passed to a helper that reads it by keys: the helper
# takes a parameter per key it reads (py_dicts), every call passing the dict's variables.
DICT_TO_HELPER = """
import math


def predict(params, x):
    return params["a"] * math.exp(-params["b"] * x) + params["c"]


def loss(params, xs, ys, n: int):
    s = 0.0
    for i in range(n):
        s += (predict(params, xs[i]) - ys[i]) ** 2
    return s


def f(a, b, xs, ys, n: int):
    params = {"a": a, "b": b, "c": 0.5}
    other = {"c": 1.0, "a": b, "b": a}
    return loss(params, xs, ys, n) + 0.1 * predict(other, 1.0)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_dict_passed_to_helpers_is_a_parameter_per_key(target):
    from fd import ParamSpec
    from source_gradients import arr, check_source, num

    params = [num("a", 0.5, 1.5), num("b", 0.2, 0.8), arr("xs", 4), arr("ys", 4), ParamSpec("n", "int", value=4)]
    text = check_source(DICT_TO_HELPER, ["a", "b"], params, target)
    assert "params_a" in text or "params" not in text.split('"""')[-1], text


def test_a_dict_passed_to_a_helper_reading_a_key_it_lacks_stays_refused():
    text = _refusal(DICT_TO_HELPER.replace('"c": 0.5}', '"d": 0.5}'), "f", ["a"])
    assert "error:" in text, text


FSUM = """
import math
from math import fsum


def f(x: "f64[n]", n: int):
    s = math.fsum(x)
    t = fsum(x[i] * x[i] for i in range(n))
    return s * t + math.fsum([x[0], 2.0 * x[n - 1]])
"""


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_math_fsum_is_a_sum(tmp_path, capsys, target):
    """``math.fsum`` adds exactly rounded, ``sum`` in order: the same value to the last bits, and
    one derivative; read as ``sum`` (of an array, a generator or a list)."""
    from source_gradients import check_command

    check_command(tmp_path, capsys, FSUM, "f", "x", "n=5", target)


# Probe leftovers: a named list read at the counter of a loop over a constant range (len() of the
# list, arithmetic of the counter, an if the counter decides): each pass picks its item.
COUNTED_LAYERS = """
import numpy as np


def f(X: "f64[n, d]", W1, b1, W2, b2, W3, b3):
    Ws = [W1, W2, W3]
    bs = (b1, b2, b3)
    h = X
    for i in range(len(Ws)):
        h = h @ Ws[i] + bs[i]
        if i < len(Ws) - 1:
            h = np.tanh(h)
    s = 0.0
    for k in range(1, 3):
        s += np.sum(Ws[k - 1] ** 2) * k
    return np.sum(h ** 2) + 0.1 * s
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_a_named_list_read_at_a_counter_of_a_constant_range_is_unrolled(target):
    from source_gradients import arr, check_source

    params = [arr("X", 5, 3), arr("W1", 3, 4), arr("b1", 4), arr("W2", 4, 4), arr("b2", 4),
              arr("W3", 4, 2), arr("b3", 2)]
    source = COUNTED_LAYERS
    if target == "numba":  # (Numba guesses biases numbers)
        source = source.replace('def f(X: "f64[n, d]", W1, b1, W2, b2, W3, b3):',
                                'def f(X: "f64[n, d]", W1, b1: "f64[a]", W2, b2: "f64[b]", W3, b3: "f64[c]"):')
    text = check_source(source, ["W1", "b1", "W2", "b3"], params, target)
    body = text.split('"""')[-1]
    assert "Ws" not in body.replace("Ws[i]", "").replace("Ws[k - 1]", "") and "range" not in body, text


@pytest.mark.parametrize("loop", [
    "for i in range(4):\n        h = h @ Ws[i] + bs[i]",  # (a pass past the list's end)
    "for i in range(len(Ws)):\n        h = h @ Ws[i] + bs[i]\n        if i > 5:\n            break",
    "for i in range(len(Ws)):\n        h = h @ Ws[i] + bs[i]\n        i = 2",
])
def test_a_counter_that_unrolling_would_misread_leaves_the_list_refused(loop):
    written = "for i in range(len(Ws)):\n        h = h @ Ws[i] + bs[i]\n        if i < len(Ws) - 1:\n"
    source = COUNTED_LAYERS.replace(written + "            h = np.tanh(h)", loop)
    assert loop in source
    text = _refusal(source, "f", ["W1"])
    assert "error:" in text, text


# Review of the unrolling (session 53): a parameter the function rebinds after naming it in a list
# (Ws = [W1, W2]; W1 = W1 * 2.0) is still the array passed in the list, where the unrolled pass
# read the new W1: a wrong gradient (MISMATCH 0.6), by a loop over the list and by a counter.
@pytest.mark.parametrize("loop", ["for W in Ws:\n        h = np.tanh(W @ h)",
                                  "for i in range(2):\n        h = np.tanh(Ws[i] @ h)"])
def test_a_list_of_a_parameter_the_function_rebinds_is_not_unrolled(loop):
    source = ('import numpy as np\n\n\ndef f(W1: "f64[n, n]", W2: "f64[n, n]", x: "f64[n]"):\n'
              "    Ws = [W1, W2]\n    W1 = W1 * 2.0\n    h = x\n    " + loop + "\n    return np.sum(h) + np.sum(W1)\n")
    with pytest.raises(DiagnosticError):
        pipeline.gradient_source(source, "prog.py", "f", ["W1", "W2"], "py")
