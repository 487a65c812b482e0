"""The derivative rules at the edges of their domains, in the code of every target.

Each case is one primitive applied element by element in a loop (``out[i] = expr``),
so one generated gradient is evaluated at many points at once, and the same Python
source goes to every target: Python, Numba, C (gcc) and CUDA (a kernel of the loop,
run on the CPU by tests/cuda_emu.h). At an edge point the gradient must equal the
partial derivative's limit that sympy computes (one-sided where the domain ends
there), or the convention the README's "Rules at the edges of their domains" states
where there is no limit; away from the edges it must match central differences.

Where the derivative is infinite or undefined (sqrt at 0, atan2 at the origin), C and
CUDA give the IEEE value (inf, NaN) and scalar Python may raise instead (Python's
``1.0 / 0.0`` and ``math.log(0.0)`` do): either is loud, and either is accepted.

The reductions ``np.max``/``np.min`` (class 8 of issue 14) split the adjoint evenly
among tied elements; the binary ``max``/``min`` give all of it to the first operand.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import pytest
import sympy as sp
from cbuild import CFunction, build, have_gcc
from cudaemu import compile_emulated, have_gxx
from fd import ParamSpec
from source_gradients import arr, check_source, num

from s2sad import pipeline

X, Y = sp.symbols("x y", real=True)
TARGETS = ["py", "numba", "c", "cuda"]

# A value that sympy's limit cannot give: the documented convention where no limit exists.
NAN = float("nan")


@dataclass
class Edge:
    """One point; ``expect[k]`` overrides operand k's limit with the README's convention."""

    point: tuple[float, ...]
    side: str = "+-"  # the side the first operand approaches its edge value from
    expect: dict[int, float] = field(default_factory=dict)


@dataclass
class Case:
    name: str
    expr: str  # the loop body's right-hand side in x[i] (and y[i])
    sym: Callable[..., Any]  # the same function in sympy
    edges: list[Edge]
    away: list[tuple[float, ...]]
    arity: int = 1
    targets: tuple[str, ...] = tuple(TARGETS)


POW = lambda a, b: a**b  # noqa: E731

CASES = [
    Case("pow", "math.pow(x[i], y[i])", POW, arity=2, edges=[
        Edge((0.0, 2.5), "+"), Edge((0.0, 1.0), "+"), Edge((0.0, 2.0), "+"), Edge((0.0, 0.5), "+"),
        # d/dx of x ** 0 is 0; d/dy at (0, 0) has no limit (log x -> -inf): 0, as JAX gives.
        Edge((0.0, 0.0), "+", {1: 0.0}),
        # A negative base with an integer exponent: d/dx is plain, d/dy is not real.
        Edge((-2.0, 3.0), expect={1: NAN}), Edge((-2.0, 2.0), expect={1: NAN}),
    ], away=[(0.7, 1.3), (1.5, 0.4), (0.2, -1.5)]),
    Case("power_operator", "x[i] ** y[i]", POW, arity=2, edges=[
        Edge((0.0, 2.5), "+"), Edge((0.0, 1.0), "+"), Edge((0.0, 0.0), "+", {1: 0.0}),
    ], away=[(0.7, 1.3), (1.5, 0.4)]),
    *[
        Case(f"power_{c}".replace("-", "minus_").replace(".", "_"), f"x[i] ** {c}", lambda a, c=c: a ** sp.nsimplify(c),
             edges=[Edge((0.0,), "+")] * (c >= 0) + [Edge((-2.0,))] * (float(c).is_integer()),
             away=[(0.8,), (1.7,)])
        for c in (0, 1, 2, 3, -1, -2, 0.5, 1.5, 2.0)
    ],
    Case("sqrt", "math.sqrt(x[i])", sp.sqrt, edges=[Edge((0.0,), "+")], away=[(0.3,), (2.0,)]),
    Case("cbrt", "math.cbrt(x[i])", lambda a: sp.sign(a) * sp.Abs(a) ** sp.Rational(1, 3),
         edges=[Edge((0.0,), "+")], away=[(0.3,), (-2.0,)], targets=("py", "c", "cuda")),
    Case("log", "math.log(x[i])", sp.log, edges=[Edge((0.0,), "+")], away=[(0.3,), (2.0,)]),
    Case("asin", "math.asin(x[i])", sp.asin, edges=[Edge((1.0,), "-"), Edge((-1.0,), "+")], away=[(0.3,), (-0.7,)]),
    Case("acos", "math.acos(x[i])", sp.acos, edges=[Edge((1.0,), "-"), Edge((-1.0,), "+")], away=[(0.3,), (-0.7,)]),
    Case("acosh", "math.acosh(x[i])", sp.acosh, edges=[Edge((1.0,), "+")], away=[(1.3,), (2.5,)]),
    # No limit at the origin (the angle of the zero vector): NaN in C, an error in Python.
    Case("atan2", "math.atan2(x[i], y[i])", sp.atan2, arity=2, edges=[Edge((0.0, 0.0), expect={0: NAN, 1: NAN})],
         away=[(0.3, 0.8), (-0.5, -0.4)]),
    # A convex kink: the least-norm subgradient, 0.
    Case("hypot", "math.hypot(x[i], y[i])", lambda a, b: sp.sqrt(a**2 + b**2), arity=2,
         edges=[Edge((0.0, 0.0), expect={0: 0.0, 1: 0.0}), Edge((0.0, 3.0))], away=[(0.3, 0.8), (-0.5, -0.4)]),
    # |x| = max(x, -x) with ties to the first operand: +1 at 0, the right derivative.
    Case("abs", "abs(x[i])", sp.Abs, edges=[Edge((0.0,), expect={0: 1.0})], away=[(0.3,), (-0.7,)]),
    Case("fabs", "math.fabs(x[i])", sp.Abs, edges=[Edge((0.0,), expect={0: 1.0})], away=[(0.3,), (-0.7,)]),
    # Ties of the binary extrema go to the first operand: the one Python's max returns.
    *[
        Case(name, f"{fn}(x[i], y[i])", sym, arity=2,
             edges=[Edge((1.5, 1.5), expect={0: 1.0, 1: 0.0}), Edge((0.0, 0.0), expect={0: 1.0, 1: 0.0})],
             away=[(0.3, 0.8), (0.9, -0.4)])
        for name, fn, sym in [("max", "max", sp.Max), ("min", "min", sp.Min), ("fmax", "np.fmax", sp.Max),
                              ("maximum", "np.maximum", sp.Max), ("minimum", "np.minimum", sp.Min)]
    ],
    # Piecewise constant: 0 everywhere, at the jumps too.
    Case("floor", "math.floor(x[i])", sp.floor, edges=[Edge((2.0,), expect={0: 0.0})], away=[(0.3,), (-1.6,)]),
    Case("ceil", "math.ceil(x[i])", sp.ceiling, edges=[Edge((2.0,), expect={0: 0.0})], away=[(0.3,), (-1.6,)]),
    # copysign(x, y) = |x| sign(y): at x = 0 the sign of x's zero (+1 for 0.0), 0 in y.
    Case("copysign", "math.copysign(x[i], y[i])", lambda a, b: sp.Abs(a) * sp.sign(b), arity=2,
         edges=[Edge((0.0, 2.0), expect={0: 1.0, 1: 0.0}), Edge((0.0, -2.0), expect={0: -1.0, 1: 0.0})],
         away=[(0.3, 0.8), (-0.5, 0.4)]),
    # At a jump (x / y an integer), the branch of the point itself: x - trunc(x / y) * y.
    Case("fmod", "math.fmod(x[i], y[i])", lambda a, b: a - 2 * b, arity=2,
         edges=[Edge((3.0, 1.5), expect={0: 1.0, 1: -2.0})], away=[(2.9, 1.2), (3.3, 1.4)]),
    # remainder(x, y) = x - n y, n the integer nearest x / y, halfway cases to the even one: at
    # a halfway point the branch of that n (3 / 2: n = 2; 5 / 2: n = 2). Numba has no remainder.
    Case("remainder", "math.remainder(x[i], y[i])", lambda a, b: a - 2 * b, arity=2,
         edges=[Edge((3.0, 2.0), expect={0: 1.0, 1: -2.0}), Edge((5.0, 2.0), expect={0: 1.0, 1: -2.0})],
         away=[(3.7, 1.5), (-4.6, 1.5), (7.3, -2.1)], targets=("py", "c", "cuda")),
    # Rounding to an integer is piecewise constant, at the halfway points too.
    Case("round", "round(x[i])", lambda a: sp.Integer(0) * a,
         edges=[Edge((2.5,), expect={0: 0.0}), Edge((-0.5,), expect={0: 0.0})], away=[(0.3,), (-1.6,)]),
    Case("rint", "np.rint(x[i])", lambda a: sp.Integer(0) * a,
         edges=[Edge((2.5,), expect={0: 0.0})], away=[(0.3,), (-1.6,)]),
    # lgamma's derivative is digamma, a helper of the output: on both sides of gamma's poles.
    Case("lgamma", "math.lgamma(x[i])", lambda a: sp.log(sp.Abs(sp.gamma(a))), edges=[],
         away=[(0.37,), (1.46,), (4.2,), (-0.4,), (-2.3,), (-7.8,)]),
    Case("gamma", "math.gamma(x[i])", sp.gamma, edges=[], away=[(0.37,), (4.2,), (-0.4,), (-2.3,)]),
    Case("ldexp", "math.ldexp(x[i], -3)", lambda a: a / 8, edges=[], away=[(0.3,), (-1.7,)]),
]


def _source(case: Case) -> str:
    params = "x, y, out, n: int" if case.arity == 2 else "x, out, n: int"
    return (f"import math\n\nimport numpy as np\n\n\ndef f({params}):\n"
            f"    for i in range(n):\n        out[i] = {case.expr}\n")


def _wrt(case: Case) -> list[str]:
    return ["x", "y"][: case.arity]


def _python_gradient(text: str) -> Callable:
    scope: dict[str, Any] = {}
    exec(compile(text, "<grad>", "exec"), scope)
    return scope["grad_f"]


def gradient(case: Case, target: str) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
    """The generated gradient as a function of the operand arrays, seeded with 1 per output."""
    text = pipeline.gradient_source(_source(case), "edge.py", "f", _wrt(case), target)
    arrays = ["x", "d_x", "y", "d_y"][: 2 * case.arity] + ["out", "d_out"]
    if target in ("py", "numba"):
        fn = _python_gradient(text)
    else:
        decls = ", ".join(f"double *{a}" for a in arrays) + ", long n"
        if target == "c":
            lib = build(text)
        else:
            call = ", ".join(arrays + ["n"])
            wrapper = (f'extern "C" void grad_f_emu({decls}) {{\n'
                       f"    emu::launch(dim3(1), dim3(64), [&] {{ grad_f({call}); }});\n}}\n")
            lib = compile_emulated(text, wrapper)
        fn = CFunction(lib, "grad_f" if target == "c" else "grad_f_emu", ["double *"] * len(arrays) + ["long"])

    def run(values: list[np.ndarray]) -> list[np.ndarray]:
        n = len(values[0])
        shadows = [np.zeros(n) for _ in values]
        args: list[Any] = []
        for v, d in zip(values, shadows):
            args += [v.copy(), d]
        args += [np.zeros(n), np.ones(n), n]
        fn(*args)
        return shadows

    return run


def _expected(case: Case, edge: Edge, k: int) -> float:
    if k in edge.expect:
        return edge.expect[k]
    syms = (X, Y)[: case.arity]
    d = sp.diff(case.sym(*syms), syms[k])
    d = d.subs({s: v for s, v in zip(syms[1:], edge.point[1:])})
    if edge.side == "+-":
        value = d.subs(X, edge.point[0])
    else:
        value = sp.limit(d, X, sp.nsimplify(edge.point[0]), edge.side)
    return float(value)


def _agrees(got: float, expect: float) -> bool:
    if math.isnan(expect):
        return math.isnan(got)
    if math.isinf(expect):
        return got == expect
    return math.isclose(got, expect, rel_tol=1e-9, abs_tol=1e-12)


def _loud(target: str, expect: float) -> bool:
    """Scalar Python raises on 1 / 0 and log(0), where C gives inf or NaN."""
    return target in ("py", "numba") and not math.isfinite(expect)


def _skip_missing(target: str) -> None:
    if target == "c" and not have_gcc():
        pytest.skip("gcc is not installed")
    if target == "cuda" and not have_gxx():
        pytest.skip("g++ is not installed")


CASE_IDS = {c.name: c for c in CASES}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(CASE_IDS))
def test_rule_at_its_edges_matches_the_limit(name, target):
    case = CASE_IDS[name]
    if target not in case.targets:
        pytest.skip(f"{case.expr} is not available in {target}")
    _skip_missing(target)
    grad = gradient(case, target)
    for edge in case.edges:
        expect = [_expected(case, edge, k) for k in range(case.arity)]
        values = [np.array([v]) for v in edge.point]
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                got = [float(d[0]) for d in grad(values)]
        except (ArithmeticError, ValueError):
            assert any(_loud(target, e) for e in expect), (name, target, edge.point, "raised", expect)
            continue
        for k in range(case.arity):
            assert _agrees(got[k], expect[k]), (name, target, edge.point, k, got[k], expect[k])


def _primal(case: Case) -> Callable[..., float]:
    scope: dict[str, Any] = {}
    exec(compile(_source(case), "<primal>", "exec"), scope)
    f = scope["f"]

    def value(*point: float) -> float:
        out = np.zeros(1)
        f(*[np.array([p]) for p in point], out, 1)
        return float(out[0])

    return value


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(CASE_IDS))
def test_rule_away_from_its_edges_matches_central_differences(name, target):
    case = CASE_IDS[name]
    if target not in case.targets:
        pytest.skip(f"{case.expr} is not available in {target}")
    _skip_missing(target)
    grad, primal = gradient(case, target), _primal(case)
    values = [np.array([p[k] for p in case.away]) for k in range(case.arity)]
    got = grad(values)
    for j, point in enumerate(case.away):
        for k in range(case.arity):
            h = 1e-6
            up, down = list(point), list(point)
            up[k] += h
            down[k] -= h
            fd = (primal(*up) - primal(*down)) / (2 * h)
            assert math.isclose(got[k][j], fd, rel_tol=1e-6, abs_tol=1e-7), (name, target, point, k, got[k][j], fd)


# ---------------------------------------------------------------- reductions with ties
TIED = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 2.0], [3.0, -1.0, 3.0, -1.0]])

REDUCTIONS = {
    "np.max(A)": (np.max, None),
    "np.min(A)": (np.min, None),
    "np.amax(A)": (np.max, None),
    "A.max()": (np.max, None),
    "A.min()": (np.min, None),
    "np.sum(np.max(A, axis=0))": (np.max, 0),
    "np.sum(np.min(A, axis=1))": (np.min, 1),
    "np.sum(np.amin(A, axis=0))": (np.min, 0),
    "np.sum(A.max(axis=1))": (np.max, 1),
    "np.sum(np.max(A, axis=1, keepdims=True))": (np.max, 1),
    "np.sum(np.min(A, axis=0, keepdims=True) * 2.0)": (np.min, 0),
}


def _even_split(reduce: Callable, axis: Optional[int], seed: float) -> np.ndarray:
    """Each of the k elements equal to the extremum of its slice gets seed / k."""
    hit = TIED == reduce(TIED, axis=axis, keepdims=True)
    return np.where(hit, seed / hit.sum(axis=axis, keepdims=True), 0.0)


@pytest.mark.parametrize("target", ["py", "numba", "c"])
@pytest.mark.parametrize("expr", sorted(REDUCTIONS))
def test_reduction_ties_share_the_adjoint_evenly(expr, target):
    _skip_missing(target)
    source = f'import numpy as np\n\n\ndef f(A: "f64[m, n]"):\n    return {expr}\n'
    text = pipeline.gradient_source(source, "ties.py", "f", ["A"], target)
    d_A = np.zeros_like(TIED)
    if target == "c":
        CFunction(build(text), "grad_f", ["double *", "double *", "long", "long", "double"])(
            TIED.copy(), d_A, TIED.shape[0], TIED.shape[1], 1.0)
    else:
        _python_gradient(text)(TIED.copy(), d_A)
    reduce, axis = REDUCTIONS[expr]
    expect = _even_split(reduce, axis, 2.0 if "2.0" in expr else 1.0)
    np.testing.assert_allclose(d_A, expect, rtol=1e-14, err_msg=f"{expr} ({target}):\n{text}")
    # The total is the seed's, once per reduced slice: ties never multiply it.
    slices = 1 if axis is None else TIED.shape[1 - axis]
    assert math.isclose(d_A.sum(), slices * (2.0 if "2.0" in expr else 1.0))


def test_binary_extrema_in_a_loop_give_ties_to_the_first_operand_in_c():
    """A running maximum (fmax in a C loop): the first of the tied elements gets the adjoint."""
    if not have_gcc():
        pytest.skip("gcc is not installed")
    source = ("#include <math.h>\n\ndouble peak(const double *x, int n) {\n    double m = x[0];\n"
              "    for (int i = 1; i < n; i++) {\n        m = fmax(m, x[i]);\n    }\n    return m;\n}\n")
    text = pipeline.gradient_source(source, "peak.c", "peak", ["x"], "c")
    x = np.array([1.0, 4.0, 2.0, 4.0, 4.0])
    d_x = np.zeros_like(x)
    CFunction(build(text), "grad_peak", ["double *", "double *", "int", "double"])(x, d_x, len(x), 1.0)
    np.testing.assert_array_equal(d_x, [0.0, 1.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_whole_array_power_at_a_zero_base_gives_the_limits(target):
    """np.power's rule has the scalar pow's edge values, without NumPy's warnings."""
    _skip_missing(target)
    source = ('import numpy as np\n\n\ndef f(x: "f64[n]", y: "f64[n]"):\n'
              "    return np.sum(x ** y) + np.sum(x ** 0) + np.sum(np.power(x, 2.5))\n")
    text = pipeline.gradient_source(source, "apow.py", "f", ["x", "y"], target)
    x, y = np.array([0.0, 0.0, 0.0, 0.7, 2.0]), np.array([2.5, 1.0, 0.0, 1.3, -1.5])
    d_x, d_y = np.zeros_like(x), np.zeros_like(y)
    if target == "c":
        CFunction(build(text), "grad_f", ["double *"] * 4 + ["long", "double"])(x, d_x, y, d_y, len(x), 1.0)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _python_gradient(text)(x, d_x, y, d_y)
    # d/dx x ** y: 0, 1 and 0 (x ** 0 is constant) at x = 0; d/dy x ** y: 0 at x = 0.
    np.testing.assert_allclose(d_x, [0.0, 1.0, 0.0, 1.3 * 0.7**0.3 + 2.5 * 0.7**1.5, -1.5 * 2.0**-2.5 + 2.5 * 2.0**1.5],
                               rtol=1e-12)
    np.testing.assert_allclose(d_y, [0.0, 0.0, 0.0, 0.7**1.3 * math.log(0.7), 2.0**-1.5 * math.log(2.0)], rtol=1e-12)


_TWO_OPERAND_UFUNCS = ('import numpy as np\n\n\ndef f(x: "f64[n]", y: "f64[n]"):\n'
                       "    return np.sum(np.arctan2(y, x) + np.hypot(x, y) + np.copysign(x, y) * np.fmod(x, y))\n")


@pytest.mark.parametrize("target", ["py", "numba", "c"])
def test_whole_array_two_operand_ufuncs_have_the_scalar_rules(target):
    """np.arctan2, np.hypot, np.copysign and np.fmod of arrays (each was refused on arrays): their
    adjoints are the scalar rules, elementwise; np.hypot's is 0 at the origin, without a warning."""
    _skip_missing(target)
    x, y = np.array([0.3, -0.5, 2.5, -1.7, 0.0]), np.array([0.8, -0.4, 0.7, 0.45, 0.0])
    d_x, d_y = np.zeros_like(x), np.zeros_like(y)
    hypot_only = 'import numpy as np\n\n\ndef f(x: "f64[n]", y: "f64[n]"):\n    return np.sum(np.hypot(x, y))\n'
    for source, points in ((_TWO_OPERAND_UFUNCS, slice(0, 4)), (hypot_only, slice(4, 5))):
        text = pipeline.gradient_source(source, "ufuncs.py", "f", ["x", "y"], target)
        a, b = x[points].copy(), y[points].copy()
        da, db = np.zeros_like(a), np.zeros_like(b)
        if target == "c":
            CFunction(build(text), "grad_f", ["double *"] * 4 + ["long", "double"])(a, da, b, db, len(a), 1.0)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                _python_gradient(text)(a, da, b, db)
        d_x[points], d_y[points] = da, db
    x, y = x[:4], y[:4]
    r2, h, fmod = x * x + y * y, np.hypot(x, y), np.fmod(x, y)
    np.testing.assert_allclose(d_x[:4], -y / r2 + x / h + np.sign(x) * np.sign(y) * fmod + np.copysign(x, y),
                               rtol=1e-12)
    np.testing.assert_allclose(d_y[:4], x / r2 + y / h - np.copysign(x, y) * np.trunc(x / y), rtol=1e-12)
    assert d_x[4] == 0.0 and d_y[4] == 0.0  # the origin: the least-norm subgradient of hypot


@pytest.mark.parametrize("target", ["py", "numba"])
def test_two_operand_ufuncs_broadcast_and_sum_back(target):
    """A number and a column against a matrix: their adjoints are summed back to their shapes."""
    source = ('import numpy as np\n\n\ndef f(A: "f64[m, n]", c: "f64[m]", s: float):\n'
              "    r = np.sum(np.arctan2(A, c[:, None]) * np.hypot(A, s))\n"
              "    return r + np.sum(np.fmod(s, c) + np.copysign(c, A[:, 0]))\n")
    positive = ParamSpec("c", "array", (3,), low=0.5, high=2.0)
    check_source(source, ["A", "c", "s"], [arr("A", 3, 4), positive, num("s", 2.5, 3.5)], target=target)
