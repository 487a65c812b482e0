"""Derivative rules checked against sympy.

Each rule is applied to a one-op function built in IR; the adjoint code it
builds is run by the reference interpreter and compared with sympy's partial
derivative of the same primitive at several points. This is the "derive once
with sympy, check forever" discipline of DESIGN.md.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from s2sad.adjoint.rules import RULES, MissingRule, adjoint_contributions
from s2sad.ssa import build
from s2sad.ssa.interp import Interpreter
from s2sad.ssa.ir import Block, Builder, Function, Module
from s2sad.ssa.mathfns import MATH
from s2sad.ssa.ops import DERIVATIVE_ONLY, MATH_FNS
from s2sad.ssa.types import F64, I64
from s2sad.ssa.verifier import verify_module

X, Y = sp.symbols("x y", real=True)

SYMPY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "neg": lambda a: -a,
    "math.sin": sp.sin,
    "math.cos": sp.cos,
    "math.tan": sp.tan,
    "math.asin": sp.asin,
    "math.acos": sp.acos,
    "math.atan": sp.atan,
    "math.sinh": sp.sinh,
    "math.cosh": sp.cosh,
    "math.tanh": sp.tanh,
    "math.asinh": sp.asinh,
    "math.acosh": sp.acosh,
    "math.atanh": sp.atanh,
    "math.exp": sp.exp,
    "math.expm1": lambda a: sp.exp(a) - 1,
    "math.exp2": lambda a: 2**a,
    "math.log": sp.log,
    "math.log1p": lambda a: sp.log(1 + a),
    "math.log2": lambda a: sp.log(a, 2),
    "math.log10": lambda a: sp.log(a, 10),
    "math.sqrt": sp.sqrt,
    "math.cbrt": lambda a: sp.sign(a) * sp.Abs(a) ** sp.Rational(1, 3),
    "math.erf": sp.erf,
    "math.erfc": sp.erfc,
    "math.abs": sp.Abs,
    "math.pow": lambda a, b: a**b,
    "math.atan2": sp.atan2,
    "math.hypot": lambda a, b: sp.sqrt(a**2 + b**2),
    "math.min": sp.Min,
    "math.max": sp.Max,
    "math.copysign": lambda a, b: sp.Abs(a) * sp.sign(b),
    "math.lgamma": lambda a: sp.log(sp.Abs(sp.gamma(a))),
    "math.tgamma": sp.gamma,
    "math.digamma": sp.digamma,
    "math.expit": lambda a: 1 / (1 + sp.exp(-a)),
    "math.fdim": lambda a, b: sp.Piecewise((a - b, a > b), (0, True)),
    "math.ldexp": lambda a, n: a * 2**n,
}

# Piecewise primitives: between the jumps, the rounded quotient is a constant.
ROUNDED = {
    "mod": lambda a, b, q: a - b * q,
    "math.fmod": lambda a, b, q: a - b * q,
    "math.floor": lambda a, q: q,
    "math.ceil": lambda a, q: q,
    "math.trunc": lambda a, q: q,
    "math.round": lambda a, q: q,
    "math.rint": lambda a, q: q,
    "math.logb": lambda a, q: q,
    "math.sign": lambda a, q: q,
    "math.remainder": lambda a, b, q: a - b * q,
}
ROUNDING = {"mod": lambda p: math.floor(p[0] / p[1]), "math.fmod": lambda p: math.trunc(p[0] / p[1]),
            "math.remainder": lambda p: round(p[0] / p[1])}

# Points inside every primitive's domain (acosh needs x > 1, asin |x| < 1, ...).
POINTS = {
    "math.acosh": [(1.3,), (2.7,)],
    "default": [(0.37, 0.81), (0.62, 0.29), (1.45, 0.58)],
    "unit": [(0.37,), (-0.62,), (0.91,)],
    "signed": [(0.37, 0.81), (-0.62, 0.29), (1.45, -0.58), (-2.5, -1.25)],
    # Both sides of the poles of gamma (0, -1, -2, ...), and past its minimum at 1.46.
    "gamma": [(0.37,), (1.45,), (4.2,), (13.7,), (-0.5,), (-2.3,), (-7.8,)],
    # The sign of fdim's difference both ways; ldexp's integer exponent.
    "math.fdim": [(0.81, 0.37), (0.29, 0.62), (-1.45, -2.5), (-2.5, 1.25)],
    "math.ldexp": [(0.37, 3), (-1.45, -2), (2.5, 0)],
    # remainder(a, b): the nearest quotient below and above a / b, of either sign.
    "math.remainder": [(3.7, 1.5), (4.6, 1.5), (-4.6, 1.5), (7.3, -2.1)],
}
# Primitives defined for every sign of their operands: also checked at negative points.
SIGNED = {
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "math.sin",
    "math.cos",
    "math.atan",
    "math.abs",
    "math.min",
    "math.max",
    "math.atan2",
    "math.hypot",
    "math.copysign",
    "math.cbrt",
    "math.exp",
    "math.erf",
    "mod",
    "math.fmod",
    "math.floor",
    "math.ceil",
    "math.trunc",
    "math.tanh",
    "math.sinh",
    "math.round",
    "math.rint",
    "math.logb",
}


class _View:
    """The op as the reverse sweep shows it to a rule (every operand available)."""

    def __init__(self, op):
        self.name = op.name
        self.operands = op.operands
        self.result = op.result


def _operand_types(name: str, arity: int) -> list:
    ints = MATH[name[5:]].int_operands if name.startswith("math.") else ()
    return [I64 if k in ints else F64 for k in range(arity)]


def _derivative_function(name: str, arity: int) -> Module:
    types = _operand_types(name, arity)
    body = Block(types, ["x", "y"][:arity])
    b = Builder(body)
    op = b.create(name, list(body.args), [F64])
    g = build.const(b, 1.0, F64)
    active = [t == F64 for t in types]  # an integer operand never carries a derivative
    contribs = adjoint_contributions(b, _View(op), g, active)
    outs = [c if c is not None else build.const(b, 0.0, F64) for c in contribs]
    b.create("return", outs, [])
    m = Module()
    m.add(Function("d", body, [F64] * arity))
    verify_module(m)
    return m


def _arity(name: str) -> int:
    if name.startswith("math."):
        return MATH_FNS[name[5:]]
    return 1 if name == "neg" else 2


@pytest.mark.parametrize("name", sorted(SYMPY) + sorted(ROUNDED))
def test_rule_matches_sympy(name):
    arity = _arity(name)
    interp = Interpreter(_derivative_function(name, arity))
    args = (X, Y)[:arity]
    points = POINTS.get(name, POINTS["signed" if name in SIGNED else "default"])
    if name in ("math.asin", "math.acos", "math.atanh"):
        points = POINTS["unit"]
    if name in ("math.lgamma", "math.tgamma", "math.digamma"):
        points = POINTS["gamma"]
    for point in points:
        point = point[:arity]
        if name in ROUNDED:
            q = ROUNDING.get(name, lambda p: 0.0)(point)
            expr = ROUNDED[name](*args, q)
        else:
            expr = SYMPY[name](*args)
        got = interp.call("d", *point)
        got = got if isinstance(got, tuple) else (got,)
        subs = dict(zip(args, point))
        for k, sym in enumerate(args):
            if isinstance(point[k], int):
                continue  # an integer operand (ldexp's exponent): no derivative
            expect = float(sp.diff(expr, sym).subs(subs).evalf(30))
            assert math.isclose(got[k], expect, rel_tol=1e-12, abs_tol=1e-12), (name, k, point, got, expect)


def test_every_math_intrinsic_has_a_rule():
    assert {f"math.{fn}" for fn in MATH_FNS if fn not in DERIVATIVE_ONLY} <= set(RULES)
    # ... and is checked here, against sympy or as a piecewise constant.
    assert {f"math.{fn}" for fn in MATH_FNS if fn not in DERIVATIVE_ONLY} <= set(SYMPY) | set(ROUNDED)
    assert DERIVATIVE_ONLY == {"trigamma"}


def test_missing_rule_is_an_error_naming_the_primitive():
    with pytest.raises(MissingRule, match="'math.gamma'"):
        adjoint_contributions(None, type("V", (), {"name": "math.gamma"})(), None, [True])


def test_every_ufunc_the_array_path_accepts_has_an_array_rule():
    from s2sad.adjoint import array_rules  # noqa: F401  (registers the arr. rules)
    from s2sad.ssa.array_ops import PREFIX, UNARY_MATH

    assert {f"{PREFIX}math.{fn}" for fn in UNARY_MATH if fn not in DERIVATIVE_ONLY} <= set(RULES)
    assert not {"tgamma", "round"} & set(UNARY_MATH)  # neither NumPy nor SciPy has such a ufunc
    assert {"lgamma", "digamma", "erf", "expit"} <= set(UNARY_MATH)  # SciPy's (gammaln, ...)
