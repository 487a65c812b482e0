"""Derivative rules: for each scalar primitive, the IR of its operands' adjoints.

A rule receives a builder (where the adjoint code goes), a view of the primal op
whose ``operands`` and ``result`` are the primal values *as available in the
reverse sweep* (reading one may emit a recomputation or a tape pop, so rules
read only what they need), the adjoint ``g`` of the op's result, and which
operands are active. It returns one entry per operand: a ``Value`` to add to
that operand's adjoint, or ``None`` for a symbolic zero (inactive operand, or
a primitive whose derivative is zero there, such as ``floor``). Rules build IR
rather than closures so every adjoint stays printable source.

The partial derivatives of the math intrinsics are checked against sympy's in
``tests/test_rules.py``; a primitive without a rule is an error naming it.
"""

from __future__ import annotations

import math as _math
from typing import Callable, Optional, Protocol, Sequence

from ..ssa import build
from ..ssa.attrs import GENERIC_MATH
from ..ssa.ir import Block, Builder, Value
from ..ssa.mathfns import MATH
from ..ssa.types import F64

Contribs = list[Optional[Value]]

# The attribute of a scalar op (``x - m``) whose result is shape-generic (``adjoint.shape_generic``:
# a number in the IR, maybe an array when the Python output runs) listing its operands that are
# numbers whatever runs: their contributions, shaped like the result, are summed to a number.
NUMBER_OPERANDS = "number_operands"


class OpView(Protocol):
    name: str
    operands: Sequence[Value]

    @property
    def result(self) -> Value: ...


Rule = Callable[[Builder, OpView, Value, list[bool]], Contribs]

RULES: dict[str, Rule] = {}


class MissingRule(Exception):
    """No derivative rule for a primitive: never differentiate it as zero silently."""


def rule(*names: str):
    def register(fn: Rule) -> Rule:
        for n in names:
            RULES[n] = fn
        return fn

    return register


def _c(b: Builder, value: float, like: Value) -> Value:
    return build.const(b, value, like.type)


def _unary(derivative: Callable[[Builder, OpView], Value]) -> Rule:
    """A one-operand rule ``g * derivative``; derivative builds d result / d operand."""

    def apply(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
        return [build.mul(b, g, derivative(b, op))] if active[0] else [None]

    return apply


def _unary_div(denominator: Callable[[Builder, OpView], Value], negate: bool = False) -> Rule:
    """A one-operand rule ``g / denominator`` (reads better than ``g * (1 / d)``)."""

    def apply(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
        if not active[0]:
            return [None]
        q = build.div(b, g, denominator(b, op))
        return [build.neg(b, q) if negate else q]

    return apply


# ---------------------------------------------------------------- arithmetic
@rule("add")
def _add(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [g if active[0] else None, g if active[1] else None]


@rule("sub")
def _sub(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [g if active[0] else None, build.neg(b, g) if active[1] else None]


@rule("mul")
def _mul(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    da = build.mul(b, g, op.operands[1]) if active[0] else None
    db = build.mul(b, g, op.operands[0]) if active[1] else None
    return [da, db]


@rule("div")
def _div(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # d(a/b)/da = 1/b, d(a/b)/db = -(a/b)/b: with q = g/b, the contributions are
    # q and -q * (a/b), one division for both (divisions cost several multiplies).
    if not (active[0] or active[1]):
        return [None, None]
    q = build.div(b, g, op.operands[1])
    db = build.neg(b, build.mul(b, q, op.result)) if active[1] else None
    return [q if active[0] else None, db]


@rule("neg")
def _neg(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [build.neg(b, g) if active[0] else None]


@rule("pow", "math.pow")
def _pow(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # Edges (README, "Rules at the edges of their domains"): where the textbook formulas
    # give 0 * inf = NaN at a = 0 although the limit is finite, the limit is returned.
    base, expo = op.operands[0], op.operands[1]
    da = db = None
    zero = _c(b, 0.0, g)
    c = build.const_value(expo)
    if active[0] and c != 0:  # a ** 0 is 1 for every a: a symbolic zero
        if c is not None:
            # A literal exponent: g * c * a ** (c - 1), folded when c is 2 or 1.
            lowered = build.binary(b, "pow", base, _c(b, c - 1, expo))
            da = build.mul(b, build.mul(b, g, expo), lowered) if c != 1 else g
        else:
            # b * a ** (b - 1) is 0 * 0 ** -1 at a = b = 0, where a ** 0 is constant.
            lowered = build.binary(b, "pow", base, build.sub(b, expo, _c(b, 1.0, expo)))
            slope = build.mul(b, build.mul(b, g, expo), lowered)
            da = build.select(b, build.cmp(b, "ne", expo, _c(b, 0.0, expo)), slope, zero)
    if active[1]:
        # a ** b * log(a) tends to 0 as a -> 0+ (for b > 0; taken as 0 for every b, as JAX does).
        slope = build.mul(b, build.mul(b, g, op.result), build.math(b, "log", base))
        db = build.select(b, build.cmp(b, "ne", base, _c(b, 0.0, base)), slope, zero)
    return [da, db]


@rule("select")
def _select(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    cond = op.operands[0]
    zero = _c(b, 0.0, g)
    da = build.select(b, cond, g, zero) if active[1] else None
    db = build.select(b, cond, zero, g) if active[2] else None
    return [None, da, db]


@rule("cast")
def _cast(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # Only a float-to-float cast carries a derivative; an int source is inactive.
    return [build.cast(b, g, op.operands[0].type) if active[0] else None]


@rule("floordiv", "math.floor", "math.ceil", "math.trunc", "math.round", "math.rint", "math.logb", "math.sign")
def _piecewise_constant(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [None] * len(active)


@rule("mod", "rem", "math.fmod", "math.remainder")
def _mod(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # a mod b = a - q * b with q = floor(a / b) (Python), trunc(a / b) (C's rem, fmod), or the
    # integer nearest a / b (remainder: read back from the result, (a - r) / b, so that at a
    # halfway point it is the q the result was made with; rint removes the rounding error).
    da = g if active[0] else None
    db = None
    if active[1]:
        a, d = op.operands[0], op.operands[1]  # read only here: each read may emit code
        if op.name == "math.remainder":
            q = build.math(b, "rint", build.div(b, build.sub(b, a, op.result), d))
        else:
            q = build.math(b, "floor" if op.name == "mod" else "trunc", build.div(b, a, d))
        db = build.neg(b, build.mul(b, g, q))
    return [da, db]


@rule("math.fdim")
def _fdim(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # fdim(a, b) is a - b where a > b, else the constant +0: at a = b, C's definition takes
    # the constant branch, and so does its derivative.
    if not (active[0] or active[1]):
        return [None, None]
    zero = _c(b, 0.0, g)
    above = build.cmp(b, "gt", op.operands[0], op.operands[1])
    da = build.select(b, above, g, zero) if active[0] else None
    db = build.select(b, above, build.neg(b, g), zero) if active[1] else None
    return [da, db]


@rule("math.ldexp")
def _ldexp(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # ldexp(a, n) = a * 2 ** n, exactly; so is ldexp(g, n). The integer n has no adjoint.
    return [build.math(b, "ldexp", g, op.operands[1]) if active[0] else None, None]


# ---------------------------------------------------------------- intrinsics
def _a(op: OpView) -> Value:
    return op.operands[0]


def _square(b: Builder, x: Value) -> Value:
    return build.mul(b, x, x)


def _partner(b: Builder, op: OpView, fn: str) -> Value:
    """``fn`` of ``op``'s operand: the primal's own value where it computes it beside ``op`` (the
    ``cos(p)`` of ``sin(p) * cos(p)``: kept or computed again as the cut prefers), else computed."""
    sibling = getattr(op, "sibling", None)
    found = sibling(f"math.{fn}") if sibling is not None else None
    return found if found is not None else build.math(b, fn, _a(op))


RULES["math.sin"] = _unary(lambda b, op: _partner(b, op, "cos"))
RULES["math.cos"] = _unary(lambda b, op: build.neg(b, _partner(b, op, "sin")))
RULES["math.tan"] = _unary(lambda b, op: build.add(b, _c(b, 1.0, op.result), _square(b, op.result)))
RULES["math.sinh"] = _unary(lambda b, op: _partner(b, op, "cosh"))
RULES["math.cosh"] = _unary(lambda b, op: _partner(b, op, "sinh"))
RULES["math.tanh"] = _unary(lambda b, op: build.sub(b, _c(b, 1.0, op.result), _square(b, op.result)))
RULES["math.exp"] = _unary(lambda b, op: op.result)
RULES["math.expm1"] = _unary(lambda b, op: build.add(b, op.result, _c(b, 1.0, op.result)))
RULES["math.exp2"] = _unary(lambda b, op: build.mul(b, op.result, _c(b, _math.log(2.0), op.result)))
RULES["math.log"] = _unary_div(lambda b, op: _a(op))
RULES["math.log1p"] = _unary_div(lambda b, op: build.add(b, _c(b, 1.0, _a(op)), _a(op)))
RULES["math.log2"] = _unary_div(lambda b, op: build.mul(b, _a(op), _c(b, _math.log(2.0), _a(op))))
RULES["math.log10"] = _unary_div(lambda b, op: build.mul(b, _a(op), _c(b, _math.log(10.0), _a(op))))
RULES["math.sqrt"] = _unary_div(lambda b, op: build.mul(b, _c(b, 2.0, op.result), op.result))
RULES["math.cbrt"] = _unary_div(lambda b, op: build.mul(b, _c(b, 3.0, op.result), _square(b, op.result)))
RULES["math.asin"] = _unary_div(
    lambda b, op: build.math(b, "sqrt", build.sub(b, _c(b, 1.0, _a(op)), _square(b, _a(op))))
)
RULES["math.acos"] = _unary_div(
    lambda b, op: build.math(b, "sqrt", build.sub(b, _c(b, 1.0, _a(op)), _square(b, _a(op)))), negate=True
)
RULES["math.atan"] = _unary_div(lambda b, op: build.add(b, _c(b, 1.0, _a(op)), _square(b, _a(op))))
RULES["math.asinh"] = _unary_div(
    lambda b, op: build.math(b, "sqrt", build.add(b, _square(b, _a(op)), _c(b, 1.0, _a(op))))
)
RULES["math.acosh"] = _unary_div(
    lambda b, op: build.math(b, "sqrt", build.sub(b, _square(b, _a(op)), _c(b, 1.0, _a(op))))
)
RULES["math.atanh"] = _unary_div(lambda b, op: build.sub(b, _c(b, 1.0, _a(op)), _square(b, _a(op))))

_TWO_OVER_SQRT_PI = 2.0 / _math.sqrt(_math.pi)


def _erf_slope(b: Builder, op: OpView) -> Value:
    bell = build.math(b, "exp", build.neg(b, _square(b, _a(op))))
    return build.mul(b, _c(b, _TWO_OVER_SQRT_PI, _a(op)), bell)


# lgamma = log |gamma|: its derivative is digamma (a helper of the output: math.h has none),
# at negative non-integers too; tgamma's is tgamma * digamma. At the poles (0, -1, ...) the
# primal is infinite.
RULES["math.lgamma"] = _unary(lambda b, op: build.math(b, "digamma", _a(op)))
RULES["math.tgamma"] = _unary(lambda b, op: build.mul(b, op.result, build.math(b, "digamma", _a(op))))

# digamma's derivative is trigamma, psi' (a helper of the output, as digamma is; SciPy's
# polygamma(1, x) on arrays); the logistic sigmoid's is r (1 - r), from its result r.
RULES["math.digamma"] = _unary(lambda b, op: build.math(b, "trigamma", _a(op)))
RULES["math.expit"] = _unary(lambda b, op: build.mul(b, op.result, build.sub(b, _c(b, 1.0, op.result), op.result)))

RULES["math.erf"] = _unary(_erf_slope)
RULES["math.erfc"] = _unary(lambda b, op: build.neg(b, _erf_slope(b, op)))


@rule("math.abs")
def _abs(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    if not active[0]:
        return [None]
    a = _a(op)
    nonneg = build.cmp(b, "ge", a, _c(b, 0.0, a))
    return [build.select(b, nonneg, g, build.neg(b, g))]


@rule("math.min", "math.max")
def _min_max(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # Ties go to the first operand, as Python's min/max return it.
    first = build.cmp(b, "le" if op.name == "math.min" else "ge", op.operands[0], op.operands[1])
    zero = _c(b, 0.0, g)
    da = build.select(b, first, g, zero) if active[0] else None
    db = build.select(b, first, zero, g) if active[1] else None
    return [da, db]


@rule("math.atan2")
def _atan2(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    y, x = op.operands[0], op.operands[1]
    r2 = build.add(b, _square(b, x), _square(b, y))
    dy = build.div(b, build.mul(b, g, x), r2) if active[0] else None
    dx = build.neg(b, build.div(b, build.mul(b, g, y), r2)) if active[1] else None
    return [dy, dx]


@rule("math.hypot")
def _hypot(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # a / hypot(a, b) is 0 / 0 at the origin, a kink of a convex function: 0 is the
    # subgradient of least norm (README, "Rules at the edges of their domains").
    if not (active[0] or active[1]):
        return [None, None]
    r = op.result
    q = build.select(b, build.cmp(b, "ne", r, _c(b, 0.0, r)), build.div(b, g, r), _c(b, 0.0, g))
    return [build.mul(b, q, op.operands[k]) if active[k] else None for k in range(2)]


@rule("math.copysign")
def _copysign(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    if not active[0]:
        return [None, None]
    one = _c(b, 1.0, g)
    sign = build.mul(b, build.math(b, "copysign", one, op.operands[0]), build.math(b, "copysign", one, op.operands[1]))
    return [build.mul(b, g, sign), None]


class _Probe:
    """A stand-in op of one float operand, to see what a rule builds (``maps_arrays``)."""

    def __init__(self, name: str, block: Block):
        self.name = name
        self.operands = [block.args[0]]
        self.result = block.args[1]
        self.attrs: dict = {}


_MAPS_ARRAYS: dict[str, bool] = {}
# What a rule may build and still map arrays elementwise: arithmetic, comparisons, and the choice
# between two values by one (``select``, which the Python output spells ``np.where`` there).
_ELEMENTWISE_MADE = ("const", "add", "sub", "mul", "div", "neg", "select", "lt", "le", "gt", "ge", "eq", "ne")


def maps_arrays(name: str) -> bool:
    """Whether the rule of the one-operand math op ``name`` builds only arithmetic and functions
    with an array spelling in the Python output (``math.lgamma`` -> ``digamma``, SciPy's ufunc),
    so that applied to an array it means the same elementwise (``adjoint.shape_generic``)."""
    if name not in _MAPS_ARRAYS:
        block = Block([F64, F64, F64])
        fn = RULES.get(name)
        ok = fn is not None
        if ok:
            fn(Builder(block), _Probe(name, block), block.args[2], [True])  # type: ignore[arg-type]
            for made in block.ops:
                row = MATH.get(made.name[5:]) if made.name.startswith("math.") else None
                if made.name not in _ELEMENTWISE_MADE and \
                        (row is None or not (row.ufunc or row.scipy) or len(made.operands) != 1):
                    ok = False
        _MAPS_ARRAYS[name] = ok
    return _MAPS_ARRAYS[name]


def adjoint_contributions(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    """The adjoint contribution of ``g`` (the result's adjoint) to each operand of ``op``.

    ``active[k]`` says whether operand k needs an adjoint; inactive operands get
    None and cost no code.
    """
    fn = RULES.get(op.name)
    if fn is None:
        raise MissingRule(f"no derivative rule for the primitive '{op.name}'")
    attrs = getattr(op, "attrs", {})
    before = {id(o) for o in b.block.ops} if attrs.get(GENERIC_MATH) else None
    contributions = fn(b, op, g, active)
    if before is not None:  # of a shape-generic value (adjoint.shape_generic): so is its adjoint's math
        for made in b.block.ops:
            if id(made) not in before and (made.name.startswith("math.") or made.name == "select"):
                made.attrs[GENERIC_MATH] = True
    for k in attrs.get(NUMBER_OPERANDS) or ():
        c = contributions[k]
        if c is not None:  # a number's share of a value that may be an array at run time: summed
            contributions[k] = b.op1("arr.sum_to_shape", [c, op.operands[k]], c.type)
    return contributions
