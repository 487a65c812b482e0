"""Module-level idioms real code uses: optional imports with fallbacks, constants bound on every
branch, ``if __name__ == "__main__":`` (issue 14, class 13 follow-up).

A name that an ``if``, a ``try`` or a loop binds is accepted where s2sad can show it means the
same on every path through the module (the same number, the same library function, a decorator
that returns the function unchanged), and refused, at the use, where its meaning may differ.
Every accepted idiom's gradient is checked against central differences of the primal run on
the fallback path (the optional module made unimportable).
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from fd import ParamSpec, central_differences, check_gradient

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError


def _grad(source: str, wrt: list[str], func: str = "f", level: int = 2) -> str:
    return pipeline.gradient_source(source, "prog.py", func, wrt, "py", pipeline.Options(level=level))


def _exec(source: str, monkeypatch=None, without: tuple[str, ...] = ()) -> types.SimpleNamespace:
    """Run ``source`` with the modules ``without`` unimportable (its fallback path)."""
    if monkeypatch is not None:
        for name in without:
            monkeypatch.setitem(sys.modules, name, None)  # `import name` raises ImportError
    namespace: dict = {"__name__": "prog"}
    exec(compile(source, "prog.py", "exec"), namespace)
    return types.SimpleNamespace(**namespace)


def _refused(source: str, func: str = "f"):
    with pytest.raises(DiagnosticError) as e:
        _grad(source, ["x"], func)
    return e.value.diagnostics


# -- accepted ----------------------------------------------------------------------------------------

NJIT_FALLBACK = """\
try:
    from numba import njit
except ImportError:
    def njit(f):
        \"\"\"Numba is optional.\"\"\"
        return f


@njit
def f(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] * x[i] * x[i]
    return s
"""


@pytest.mark.parametrize("level", [2, 0])
def test_identity_fallback_for_njit(monkeypatch, level):
    grad = _exec(_grad(NJIT_FALLBACK, ["x"], level=level)).grad_f
    primal = _exec(NJIT_FALLBACK, monkeypatch, ("numba",)).f
    params = [ParamSpec("x", "array", (5,)), ParamSpec("n", "int", value=5)]
    check_gradient(primal, grad, params, ["x"], set(), np.random.default_rng(0))


HAVE_NUMBA = """\
import math

try:
    import numba
    HAVE_NUMBA = True
except ImportError:
    numba = None
    HAVE_NUMBA = False

if HAVE_NUMBA:
    jit = numba.njit
else:
    def jit(*args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]

        def decorator(func):
            return func
        return decorator


def maybe_njit(func):
    if numba is not None:
        return numba.njit(func)
    return func


@jit(cache=True)
def g(x):
    return math.sin(x) * x


@jit("f8(f8, f8)")
def h(x, y):
    return x * y


@maybe_njit
@jit
def f(x, y):
    return g(x) * 3.0 + h(x, y)
"""


def test_have_numba_flag_and_a_decorator_factory_fallback(monkeypatch):
    text = _grad(HAVE_NUMBA, ["x", "y"])
    primal = _exec(HAVE_NUMBA, monkeypatch, ("numba",)).f
    point = [0.7, -1.2]
    assert np.allclose(_exec(text).grad_f(*point, 1.0), central_differences(primal, point), rtol=1e-6)


@pytest.mark.parametrize("fallback", ["numba = None", "pass"])
def test_module_fallback_where_the_decorator_would_fail_to_import(fallback):
    """On the fallback path `@numba.njit` raises (None has no njit; numba is unbound): the function
    does not exist there, so the only path where it does decides."""
    src = f"try:\n    import numba\nexcept ImportError:\n    {fallback}\n\n\n" \
          "@numba.njit\ndef f(x):\n    return x * x * x\n"
    assert _exec(_grad(src, ["x"])).grad_f(0.5) == pytest.approx(3 * 0.25)


def test_lambda_fallback_for_njit(monkeypatch):
    src = "try:\n    from numba import njit\nexcept ImportError:\n    njit = lambda f: f  # noqa: E731\n\n\n" \
          "@njit\ndef f(x):\n    return x * x\n"
    primal = _exec(src, monkeypatch, ("numba",)).f
    assert _exec(_grad(src, ["x"])).grad_f(0.3) == pytest.approx(central_differences(primal, [0.3])[0])


ERF = """\
try:
    from scipy.special import erf
except ImportError:
    from math import erf
import math

try:
    import numba
    EPS = 1e-3
    from numpy import exp
except ImportError:
    EPS = 0.001
    exp = math.exp


def f(x):
    return erf(x) * exp(x) + EPS * x
"""


def test_same_function_and_same_constant_on_every_path(monkeypatch):
    text = _grad(ERF, ["x"])
    assert "math.exp(-(x * x))" in text  # read as math.erf: every path accepts a scalar
    primal = _exec(ERF, monkeypatch, ("scipy", "scipy.special", "numba")).f
    assert _exec(text).grad_f(0.4) == pytest.approx(central_differences(primal, [0.4])[0], rel=1e-6)


MAIN = """\
import numpy as np

K = 2.0


def f(x):
    return np.sin(x) * K


if __name__ == "__main__":
    import numpy as np
    K = 2.0
    x = np.linspace(0.0, 1.0, 5)
    for i in range(3):
        print(f(x[i]))
"""


def test_main_block_that_rebinds_names_the_same_or_ones_the_function_does_not_use():
    primal = _exec(MAIN).f
    d_x = np.zeros(())  # np.sin(x) * K maps any shape: x is shape-generic, its shadow a 0-d array for a number
    _exec(_grad(MAIN, ["x"])).grad_f(0.3, d_x)
    assert float(d_x) == pytest.approx(central_differences(primal, [0.3])[0], rel=1e-6)


# -- refused -----------------------------------------------------------------------------------------

def test_fallback_binding_a_different_function_is_refused_at_the_use():
    src = ("try:\n    from scipy.special import erf\nexcept ImportError:\n    def erf(x):\n        return x\n\n\n"
           "def f(x):\n    return erf(x) * 2.0\n")
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (9, 12)
    assert d.message == ("'erf' is bound differently on different paths through the module: scipy.special.erf "
                         "(line 2) or the function defined at line 4")
    assert "bind erf unconditionally" in d.hint


def test_functions_that_differ_in_what_they_return_are_not_one():
    """math.floor gives an int, numpy.floor a float."""
    src = "try:\n    from math import floor\nexcept ImportError:\n    from numpy import floor\n\n\n" \
          "def f(x):\n    return floor(x) * x\n"
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (8, 12) and "math.floor (line 2) or numpy.floor (line 4)" in d.message


def test_name_a_fallback_leaves_unbound_is_refused():
    src = "try:\n    from math import erf\nexcept ImportError:\n    pass\n\n\ndef f(x):\n    return erf(x)\n"
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (8, 12)
    assert d.message == "'erf' may be unbound or math.erf (line 2), depending on which path through the module ran"


def test_constant_that_differs_between_branches_is_refused():
    src = "import sys\n\nif sys.platform == 'win32':\n    EPS = 1e-8\nelse:\n    EPS = 1e-6\n\n\n" \
          "def f(x):\n    return x * EPS\n"
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (10, 16)
    assert "the number 1e-08 (line 4) or the number 1e-06 (line 6)" in d.message


def test_int_and_float_constants_are_not_the_same():
    src = "try:\n    import numba\n    N = 2\nexcept ImportError:\n    N = 2.0\n\n\ndef f(x):\n    return x ** N\n"
    (d,) = _refused(src)
    assert "the number 2 (line 3) or the number 2.0 (line 5)" in d.message


@pytest.mark.parametrize("fallback", [
    # a factory used bare: njit(f) returns `decorator`, so f would be the identity function
    "def njit(*args, **kwargs):\n        def decorator(func):\n            return func\n        return decorator",
    "def njit(f):\n        return lambda x: 0.0",
    "def njit(f):\n        return f if f.__name__ == 'g' else None",
    "from mylib import fast as njit",
])
def test_fallback_decorator_that_may_change_the_function_is_refused(fallback):
    src = f"try:\n    from numba import njit\nexcept ImportError:\n    {fallback}\n\n\n" \
          "@njit\ndef f(x):\n    return x * x\n"
    (d,) = _refused(src)
    line = src.splitlines().index("@njit") + 1
    assert (d.loc.line, d.loc.col) == (line, 2)
    assert d.message.startswith("decorator 'njit' may change what 'f' computes: where 'njit' is ")
    assert "numba.njit" not in d.message.split("where")[1]  # only the path that is not shown harmless


def test_identity_fallback_called_with_arguments_is_refused():
    """With `def njit(f): return f`, `@njit(g)` makes f what g(f) returns."""
    src = "try:\n    from numba import njit\nexcept ImportError:\n    def njit(f):\n        return f\n\n\n" \
          "def g(x):\n    return x * 2.0\n\n\n@njit(g)\ndef f(x):\n    return x * x\n"
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (12, 2)


def test_name_bound_only_under_main_is_refused():
    src = "def f(x):\n    return x * N\n\n\nif __name__ == '__main__':\n    N = 3\n"
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (2, 16)
    assert d.message == ("'N' is bound only under 'if __name__ == \"__main__\":', which does not run when the file "
                         "is imported")
    assert d.hint == "bind N at top level, outside that block"


def test_main_block_that_rebinds_a_name_to_something_else_is_refused():
    src = MAIN.replace("    K = 2.0\n    x", "    K = 3.0\n    x")
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (7, 24)
    assert "the number 2.0 (line 3) or the number 3.0 (line 12)" in d.message and "as a script" in d.message


def test_different_modules_under_one_alias_are_refused():
    src = "try:\n    import jax.numpy as np\nexcept ImportError:\n    import numpy as np\n\n\n" \
          "def f(x):\n    return np.sin(x)\n"
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (8, 12) and "jax.numpy (line 2) or numpy (line 4)" in d.message


def test_function_defined_on_some_paths_only_is_refused_at_its_definition():
    src = "import sys\n\nif sys.version_info >= (3, 9):\n    def f(x):\n        return x * x\n"
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (4, 9)
    assert d.message.startswith("'f' may be unbound or the function defined at line 4")


@pytest.mark.parametrize("fallback", [
    "def njit(f): return f",
    "njit = lambda f: f  # noqa: E731",
    "def njit(*a, **k): return a[0] if a and callable(a[0]) else (lambda g: g)",
])
def test_one_line_fallbacks(monkeypatch, fallback):
    src = f"try: from numba import njit\nexcept ImportError:\n    {fallback}\n\n\n" \
          "@njit\ndef f(x):\n    return x * x * x\n"
    primal = _exec(src, monkeypatch, ("numba",)).f
    assert _exec(_grad(src, ["x"])).grad_f(0.6) == pytest.approx(central_differences(primal, [0.6])[0], rel=1e-6)


def test_decorator_means_what_it_meant_where_the_function_was_defined():
    """A later `from numba import njit` does not make an earlier `@njit` numba's: the decorator ran
    when the def did, with the njit bound then."""
    src = "def njit(f):\n    return lambda x: 0.0\n\n\n@njit\ndef f(x):\n    return x * x\n\n\nfrom numba import njit\n"
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (5, 2) and d.message == "decorator 'njit' may change what 'f' computes"
    fine = "def njit(f):\n    return f\n\n\n@njit\ndef f(x):\n    return x * x\n\n\nnjit = None\n"
    assert _exec(_grad(fine, ["x"])).grad_f(0.5) == pytest.approx(1.0)


def test_fallback_whose_condition_cannot_be_decided_is_refused():
    src = ("import os\n\ntry:\n    from numba import njit\nexcept ImportError:\n    def njit(f):\n"
           "        if os.environ.get('X'):\n            return f\n        return None\n\n\n"
           "@njit\ndef f(x):\n    return x * x\n")
    (d,) = _refused(src)
    assert (d.loc.line, d.loc.col) == (12, 2) and "the function defined at line 6" in d.message


def test_prange_with_a_range_fallback_is_read_as_range(monkeypatch):
    src = ("try:\n    from numba import njit, prange\nexcept ImportError:\n    prange = range\n\n"
           "    def njit(*args, **kwargs):\n        if len(args) == 1 and callable(args[0]):\n"
           "            return args[0]\n        return lambda f: f\n\n\n"
           "@njit(parallel=True)\ndef f(x, n):\n    s = 0.0\n    for i in prange(n):\n        s += x[i] * x[i]\n"
           "    return s\n")
    text = _grad(src, ["x"])
    code = [ln for ln in text.split("def grad_f", 1)[1].splitlines() if not ln.strip().startswith("#")]
    assert not any("prange" in ln for ln in code), text  # serial: the fallback path has no numba
    primal = _exec(src, monkeypatch, ("numba",)).f
    params = [ParamSpec("x", "array", (4,)), ParamSpec("n", "int", value=4)]
    check_gradient(primal, _exec(text).grad_f, params, ["x"], set(), np.random.default_rng(3))


# -- module-level tables of literals -----------------------------------------------------------------

TABLES = """\
import numpy as np

TAUS = np.array([0.1, 0.5, 0.9])
NODES = np.linspace(-1.0, 1.0, 5)
WEIGHTS = [0.2, 0.3, 0.5]
SCALE = 2.0


def pinball(r, tau):
    return np.sum(np.maximum(tau * r, (tau - 1.0) * r))


def f(x, y):
    \"\"\"A loss reading three tables of the module, one through a helper.\"\"\"
    total = 0.0
    for k in range(3):
        total += WEIGHTS[k] * pinball(y - TAUS[k] * x, TAUS[k])
    return total + SCALE * np.sum(np.tanh(NODES * x[0]) ** 2)
"""


@pytest.mark.parametrize("target", ["py", "numba"])
def test_module_tables_of_literals_are_read_where_a_function_starts(target):
    """``TAUS = np.array([...])``, ``np.linspace(...)``, a list of numbers at the top of the file:
    each function that reads one makes it again where it starts (the gradient, a file of its
    own, has no module to read it from), under the source's name (probe p64 was refused)."""
    text = pipeline.gradient_source(TABLES, "prog.py", "f", ["x", "y"], target)
    assert "TAUS = " in text and "WEIGHTS = " in text and "NODES = " in text
    primal = _exec(TABLES).f
    namespace: dict = {}
    exec(compile(text, "<grad_f>", "exec"), namespace)
    grad = namespace["grad_f"]
    x, y = np.array([0.3, -0.4, 0.8]), np.array([0.5, 0.1, -0.6])
    d_x, d_y = np.zeros(3), np.zeros(3)
    grad(x, d_x, y, d_y)
    h = 1e-6
    for k in range(3):
        e = np.eye(3)[k] * h
        assert d_x[k] == pytest.approx((primal(x + e, y) - primal(x - e, y)) / (2 * h), rel=1e-6, abs=1e-8)
        assert d_y[k] == pytest.approx((primal(x, y + e) - primal(x, y - e)) / (2 * h), rel=1e-6, abs=1e-8)


def test_a_module_table_some_function_writes_stays_refused():
    """A table written in place (here by a helper it is passed to) changes from one call to the
    next in the primal; made again in each call it would not: refused, located, as before."""
    source = TABLES.replace("def f(x, y):", "def bump(t):\n    t[0] += 1.0\n\n\ndef f(x, y):\n    bump(TAUS)")
    diagnostics = _refused(source)
    assert diagnostics and all("module-level variable 'TAUS' is not a numeric constant" in d.message
                               for d in diagnostics)
