"""String parameters that the code compares (issue 18, plain Python): ``reduction="mean"``.

A parameter compared with string literals (``==``, ``!=``, ``in``/``not in`` a tuple of them),
or with one as its default, is a string (the IR's ``str``): it chooses branches, is never
differentiated, and the Python and Numba gradients keep it, default included. Literals passed
to a helper that compares them fold where the helper is inlined (two literals are equal only
when they are the same string). Any other use is a located error, and C output refuses it.
"""

from __future__ import annotations

import numpy as np
import pytest

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError

SOURCE = '''
import numpy as np


def scaled(v, how):
    if how == "abs":
        r = np.sum(np.abs(v))
    else:
        r = np.sum(v * v)
    return r


def f(x, n: int, mode="a", other="b", *, flag: str = "on"):
    m = mode
    s = 0.0
    for i in range(n):
        if m in ("a", "aa"):
            s += x[i] * x[i]
        elif mode == other:
            s += np.sin(x[i])
        elif "z" != m:
            s += x[i]
        scale = 2.0 if flag != "off" else 1.0
        s = s * scale
    return s + scaled(x, mode) + scaled(x, "abs") + scaled(x, "sq")
'''

CALLS = [{}, {"mode": "b"}, {"mode": "c", "other": "c"}, {"mode": "abs", "flag": "off"}, {"mode": "z"},
         {"mode": "aa", "other": "aa"}]


def _load(text: str, name: str):
    namespace: dict = {}
    exec(compile(text, name, "exec"), namespace)
    return namespace


@pytest.mark.parametrize("target", ["py", "numba"])
@pytest.mark.parametrize("level", [0, 2])
def test_every_choice_of_the_strings_gives_the_gradient(target, level):
    text = pipeline.gradient_source(SOURCE, "t.py", "f", ["x"], target, pipeline.Options(level=level))
    assert 'mode="a", other="b"' in text and 'flag="on"' in text  # the defaults, kept
    grad = _load(text, "grad_t.py")["grad_f"]
    f = _load(SOURCE, "t.py")["f"]
    x = np.array([0.3, -0.5, 0.8, 1.1])
    for kw in CALLS:
        d_x = np.zeros_like(x)
        grad(x, d_x, 4, **kw)
        h = 1e-6
        fd = [(f(x + h * e, 4, **kw) - f(x - h * e, 4, **kw)) / (2 * h) for e in np.eye(4)]
        np.testing.assert_allclose(d_x, fd, rtol=1e-6, atol=1e-8, err_msg=str(kw))


def test_literals_passed_to_an_inlined_helper_fold_to_their_own_branch():
    # "abs" and "sq" are different strings: were they folded alike, both calls would take one branch
    # (the numbers above check it too). Inlined at -O2, no comparison of two literals is left.
    text = pipeline.gradient_source(SOURCE, "t.py", "f", ["x"], "py", pipeline.Options(level=2))
    assert 'how == "abs"' in text  # scaled(x, mode): compared where it runs
    assert '"abs" == "abs"' not in text and '"sq" == "abs"' not in text


def _errors(source: str, target: str = "py") -> list[str]:
    with pytest.raises(DiagnosticError) as info:
        pipeline.gradient_source(source, "e.py", "f", ["x"], target, pipeline.Options())
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in info.value.diagnostics]


@pytest.mark.parametrize("body, expected", [
    ("return x * mode", "2:16: 'mode' is a string, but a number is needed here"),
    ("return x if mode else -x", "2:17: 'mode' is a string, but a number is needed here"),
    ('return x if mode < "b" else -x', "2:17: strings are compared only with ==, !=, in and not in, one "
                                       "comparison at a time"),
    ('return x if x == "b" else -x', "2:17: 'x' is compared with a string, but it is not a string"),
    ('return x if mode in ("a", 1.0) else -x', "2:31: a string is tested for membership only in a tuple, list or "
                                               "set of string literals"),
])
def test_other_uses_of_a_string_are_located(body, expected):
    assert _errors(f'def f(x: float, mode="a"):\n    {body}\n') == [expected]


def test_a_number_passed_where_a_helper_compares_a_string_is_located():
    source = 'def h(x, how):\n    return x if how == "a" else -x\n\n\ndef f(x: float):\n    return h(x, 1.0)\n'
    assert _errors(source) == ["6:17: parameter 'how' of 'h' is a string (it is compared with strings there), "
                               "but this value is a float"]


def test_c_output_refuses_a_string_parameter_at_it():
    assert _errors('def f(x: float, mode="a"):\n    return x if mode == "a" else -x\n', "c") == [
        "1:17: --target c: parameter 'mode' of 'f' is a string, which C output does not take"]


@pytest.mark.parametrize("loop", [
    "m = mode\n    for i in range(3):\n        if m == \"a\":\n            x = 2.0 * x\n        m = other",
    "for i in range(3):\n        if x > i:\n            m = mode\n        else:\n            m = other\n"
    "        if m == \"a\":\n            x = 2.0 * x",
])
def test_a_string_that_a_loop_changes_is_located(loop):
    errors = _errors(f'def f(x: float, mode="a", other="b"):\n    {loop}\n    return x\n')
    assert len(errors) == 1 and "'m' is a string that this loop changes" in errors[0], errors
