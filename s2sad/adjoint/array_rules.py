"""Derivative rules of the whole-array ops (``arr.``), in the same registry as the scalar ones.

A rule gets the adjoint ``g`` of the op's result, which has the result's exact
shape (an array of the same rank, or a scalar for a full reduction), and returns
each operand's contribution in that operand's exact shape, so the adjoint
transform can add contributions with ``+`` or into shadow memory with ``+=``:

* broadcasting is undone by summing over the broadcast axes (``arr.sum_to``:
  the leading axes a lower-rank operand lacks, and the axes of extent 1 that
  ``keepdims`` reductions leave; a scalar operand gets the total);
* ``sum``/``mean`` spread ``g`` back over the reduced axes (``arr.broadcast``),
  ``max``/``min`` send it to the elements equal to the extremum;
* ``A @ x`` gives ``outer(g, x)`` and ``A.T @ g``; ``A @ B`` gives ``g @ B.T`` and
  ``A.T @ g``; ``outer(a, b)`` gives ``g @ b`` and ``g.T @ a``; ``A.T`` gives ``g.T``.

Everything stays vectorized: no rule emits an element loop. References:
Giles, "An extended collection of matrix derivative results for forward and
reverse mode AD" (2008) for the matrix products.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

from ..ssa import array_ops, attrs, build
from ..ssa.ir import Builder, Value
from ..ssa.types import F64, I64
from .rules import Contribs, MissingRule, OpView, rule

P = array_ops.PREFIX


def arr(b: Builder, name: str, operands: list[Value], **attrs) -> Value:
    """``arr.<name>(operands)``, typed by ``array_ops.result_type``."""
    t = array_ops.result_type(P + name, [v.type for v in operands], attrs)
    assert not isinstance(t, str), t
    return b.op1(P + name, operands, t, **attrs)


def ew(b: Builder, name: str, x: Value, y: Value) -> Value:
    """Elementwise ``x <name> y``: the scalar op when both are scalars."""
    if x.type.is_array or y.type.is_array:
        return arr(b, name, [x, y])
    return build.binary(b, name, x, y)


def neg(b: Builder, x: Value) -> Value:
    return arr(b, "neg", [x]) if x.type.is_array else build.neg(b, x)


def _f(b: Builder, value: float) -> Value:
    return build.const(b, value, F64)


# The attribute of an ``arr.`` op listing its operands that are shape-generic (``adjoint.shape_generic``).
GENERIC_OPERANDS = attrs.GENERIC_OPERANDS


def reduce_to(b: Builder, c: Value, like: Value, generic: bool = False, met: Sequence[Value] = ()) -> Value:
    """``c`` (shaped like an op's result) summed down to ``like``'s shape (undoing broadcasting);
    ``generic``: ``like`` is a shape-generic number, whose shape only the run time knows, and
    ``met`` the arrays it meets there (its shape must not make them bigger: checked)."""
    if generic and c.type.is_array:
        return arr(b, "sum_to_shape", [c, like, *met])
    if not like.type.is_array:
        return arr(b, "sum", [c]) if c.type.is_array else c
    keep = sorted(array_ops.shape_unit_axes(like) - array_ops.shape_unit_axes(c))
    if c.type.rank == like.type.rank and not keep:
        return c
    return arr(b, "sum_to", [c, like], keep=keep)


def _generic_operands(op: OpView) -> frozenset[int]:
    return frozenset(getattr(op, "attrs", {}).get(GENERIC_OPERANDS) or ())


def _met(op: OpView, generic: frozenset[int]) -> list[Value]:
    """The array operands a shape-generic operand of ``op`` meets."""
    return [v for k, v in enumerate(op.operands) if k not in generic and v.type.is_array]


def _elementwise(partials: Callable[[Builder, OpView, Value, list[bool]], list[Optional[Value]]]):
    """A rule for a broadcasting binary op from its contributions in the result's shape."""

    def apply(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
        cs = partials(b, op, g, active)
        generic = _generic_operands(op)
        met = _met(op, generic)
        return [reduce_to(b, c, op.operands[k], k in generic, met) if c is not None and active[k] else None
                for k, c in enumerate(cs)]

    return apply


rule(P + "add")(_elementwise(lambda b, op, g, act: [g, g]))
rule(P + "sub")(_elementwise(lambda b, op, g, act: [g, neg(b, g) if act[1] else None]))


@rule(P + "mul")
@_elementwise
def _mul(b: Builder, op: OpView, g: Value, act: list[bool]) -> list[Optional[Value]]:
    return [ew(b, "mul", g, op.operands[1]) if act[0] else None, ew(b, "mul", g, op.operands[0]) if act[1] else None]


@rule(P + "div")
@_elementwise
def _div(b: Builder, op: OpView, g: Value, act: list[bool]) -> list[Optional[Value]]:
    q = ew(b, "div", g, op.operands[1])  # one division serves both: d/db (a/b) = -(a/b)/b
    return [q, neg(b, ew(b, "mul", q, op.result)) if act[1] else None]


@rule(P + "pow")
@_elementwise
def _pow(b: Builder, op: OpView, g: Value, act: list[bool]) -> list[Optional[Value]]:
    # The scalar rule's edge values at a = 0, with the guard on an operand rather than on the
    # result: NumPy evaluates both sides of np.where, and 0 ** -1 or log(0) would warn.
    base, expo = op.operands[0], op.operands[1]
    da = db = None
    c = build.const_value(expo)
    if act[0] and c != 0:  # a ** 0 is 1 for every a
        if c == 2:
            da = ew(b, "mul", ew(b, "mul", g, _f(b, 2.0)), base)
        elif c == 1:
            da = g
        elif c is not None:
            da = ew(b, "mul", ew(b, "mul", g, expo), ew(b, "pow", base, _f(b, c - 1)))
        else:
            # b * a ** (b - 1), with the exponent 1 where b = 0 (there b * ... is 0, the limit).
            lowered = _guarded(b, expo, ew(b, "sub", expo, _f(b, 1.0)), 1.0)
            da = ew(b, "mul", ew(b, "mul", g, expo), ew(b, "pow", base, lowered))
    if act[1]:
        # a ** b * log(a) -> 0 as a -> 0+: log(1) where a = 0.
        db = ew(b, "mul", ew(b, "mul", g, op.result), _math(b, "log", _guarded(b, base, base, 1.0)))
    return [da, db]


def _guarded(b: Builder, test: Value, x: Value, value: float) -> Value:
    """``x``, with ``value`` where ``test`` is 0 (``np.where(test == 0.0, value, x)``)."""
    is_zero = ew(b, "eq", test, _f(b, 0.0)) if test.type.is_array else build.cmp(b, "eq", test, _f(b, 0.0))
    if is_zero.type.is_array:
        return arr(b, "where", [is_zero, _f(b, value), x])
    return build.select(b, is_zero, _f(b, value), x)


@rule(P + "maximum", P + "minimum")
@_elementwise
def _extremum(b: Builder, op: OpView, g: Value, act: list[bool]) -> list[Optional[Value]]:
    # Ties go to the first operand, as the scalar rule does.
    first = arr(b, "ge" if op.name == P + "maximum" else "le", [op.operands[0], op.operands[1]])
    zero = _f(b, 0.0)
    da = arr(b, "where", [first, g, zero]) if act[0] else None
    return [da, arr(b, "where", [first, zero, g]) if act[1] else None]


@rule(P + "where")
def _where(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    cond = op.operands[0]
    zero = _f(b, 0.0)
    generic = _generic_operands(op)
    met = _met(op, generic)
    da = reduce_to(b, arr(b, "where", [cond, g, zero]), op.operands[1], 1 in generic, met) if active[1] else None
    db = reduce_to(b, arr(b, "where", [cond, zero, g]), op.operands[2], 2 in generic, met) if active[2] else None
    return [None, da, db]


@rule(P + "broadcast")
def _broadcast(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # A value stretched to an array's shape (xlogy of an array and a number): its adjoint is g
    # summed back down to its shape. (The adjoint's own broadcasts, with an axis, are never
    # differentiated.)
    if op.attrs.get("axis") is not None:
        raise MissingRule("no derivative rule for 'arr.broadcast' along an axis")
    generic = _generic_operands(op)
    return [reduce_to(b, g, op.operands[0], 0 in generic, _met(op, generic)) if active[0] else None, None]


@rule(P + "neg")
def _neg(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [neg(b, g) if active[0] else None]


# ---------------------------------------------------------------- ufuncs
def _math(b: Builder, fn: str, *xs: Value) -> Value:
    return arr(b, "math." + fn, list(xs)) if any(x.type.is_array for x in xs) else build.math(b, fn, *xs)


def _square(b: Builder, x: Value) -> Value:
    return ew(b, "mul", x, x)


def _one_minus_square(b: Builder, x: Value) -> Value:
    return ew(b, "sub", _f(b, 1.0), _square(b, x))


def _bell(b: Builder, x: Value) -> Value:
    """d erf(x) / dx = 2 / sqrt(pi) exp(-x**2)."""
    return ew(b, "mul", _f(b, 2.0 / math.sqrt(math.pi)), _math(b, "exp", neg(b, _square(b, x))))


_UFUNC_SLOPES: dict[str, Callable[[Builder, OpView, Value], Value]] = {
    # fn -> builds g * d fn(a) / da
    "exp": lambda b, op, g: ew(b, "mul", g, op.result),
    "log": lambda b, op, g: ew(b, "div", g, op.operands[0]),
    "sqrt": lambda b, op, g: ew(b, "div", g, ew(b, "mul", _f(b, 2.0), op.result)),
    "sin": lambda b, op, g: ew(b, "mul", g, _math(b, "cos", op.operands[0])),
    "cos": lambda b, op, g: neg(b, ew(b, "mul", g, _math(b, "sin", op.operands[0]))),
    "tan": lambda b, op, g: ew(b, "mul", g, ew(b, "add", _f(b, 1.0), ew(b, "mul", op.result, op.result))),
    "tanh": lambda b, op, g: ew(b, "mul", g, _one_minus_square(b, op.result)),
    "sinh": lambda b, op, g: ew(b, "mul", g, _math(b, "cosh", op.operands[0])),
    "cosh": lambda b, op, g: ew(b, "mul", g, _math(b, "sinh", op.operands[0])),
    "expm1": lambda b, op, g: ew(b, "mul", g, ew(b, "add", op.result, _f(b, 1.0))),
    "log1p": lambda b, op, g: ew(b, "div", g, ew(b, "add", _f(b, 1.0), op.operands[0])),
    "atan": lambda b, op, g: ew(b, "div", g, ew(b, "add", _f(b, 1.0), ew(b, "mul", op.operands[0], op.operands[0]))),
    "asin": lambda b, op, g: ew(b, "div", g, _math(b, "sqrt", _one_minus_square(b, op.operands[0]))),
    "acos": lambda b, op, g: neg(b, ew(b, "div", g, _math(b, "sqrt", _one_minus_square(b, op.operands[0])))),
    "asinh": lambda b, op, g: ew(b, "div", g, _math(b, "sqrt", ew(b, "add", _square(b, op.operands[0]), _f(b, 1.0)))),
    "acosh": lambda b, op, g: ew(b, "div", g, _math(b, "sqrt", ew(b, "sub", _square(b, op.operands[0]), _f(b, 1.0)))),
    "atanh": lambda b, op, g: ew(b, "div", g, _one_minus_square(b, op.operands[0])),
    "cbrt": lambda b, op, g: ew(b, "div", g, ew(b, "mul", _f(b, 3.0), _square(b, op.result))),
    "exp2": lambda b, op, g: ew(b, "mul", g, ew(b, "mul", op.result, _f(b, math.log(2.0)))),
    "log2": lambda b, op, g: ew(b, "div", g, ew(b, "mul", op.operands[0], _f(b, math.log(2.0)))),
    "log10": lambda b, op, g: ew(b, "div", g, ew(b, "mul", op.operands[0], _f(b, math.log(10.0)))),
    # SciPy's ufuncs (the output imports them from scipy.special, as the input does)
    "lgamma": lambda b, op, g: ew(b, "mul", g, _math(b, "digamma", op.operands[0])),
    "digamma": lambda b, op, g: ew(b, "mul", g, _math(b, "trigamma", op.operands[0])),
    "expit": lambda b, op, g: ew(b, "mul", g, ew(b, "mul", op.result, ew(b, "sub", _f(b, 1.0), op.result))),
    "erf": lambda b, op, g: ew(b, "mul", g, _bell(b, op.operands[0])),
    "erfc": lambda b, op, g: neg(b, ew(b, "mul", g, _bell(b, op.operands[0]))),
    "abs": lambda b, op, g: arr(
        b, "where", [arr(b, "ge", [op.operands[0], _f(b, 0.0)]), g, neg(b, g)]
    ),
}


def _ufunc_rule(fn: str):
    def apply(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
        return [_UFUNC_SLOPES[fn](b, op, g) if active[0] else None]

    return apply


for _fn in _UFUNC_SLOPES:
    rule(P + "math." + _fn)(_ufunc_rule(_fn))


# The two-operand ufuncs (``array_ops.BINARY_MATH``), as their scalar rules (``rules``) define
# them at every point, edges included; broadcast operands get their contributions summed back.
@rule(P + "math.atan2")
@_elementwise
def _atan2(b: Builder, op: OpView, g: Value, act: list[bool]) -> list[Optional[Value]]:
    y, x = op.operands
    r2 = ew(b, "add", _square(b, x), _square(b, y))
    dy = ew(b, "div", ew(b, "mul", g, x), r2) if act[0] else None
    return [dy, neg(b, ew(b, "div", ew(b, "mul", g, y), r2)) if act[1] else None]


@rule(P + "math.hypot")
@_elementwise
def _hypot(b: Builder, op: OpView, g: Value, act: list[bool]) -> list[Optional[Value]]:
    # a / hypot(a, b) is 0 / 0 at the origin, where the scalar rule takes 0 (the subgradient of
    # least norm): dividing by 1 there instead gives g * 0, without NumPy's warning of a 0 / 0.
    q = ew(b, "div", g, _guarded(b, op.result, op.result, 1.0))
    return [ew(b, "mul", q, v) if act[k] else None for k, v in enumerate(op.operands)]


@rule(P + "math.copysign")
@_elementwise
def _copysign(b: Builder, op: OpView, g: Value, act: list[bool]) -> list[Optional[Value]]:
    if not act[0]:
        return [None, None]
    signs = ew(b, "mul", _math(b, "copysign", _f(b, 1.0), op.operands[0]),
               _math(b, "copysign", _f(b, 1.0), op.operands[1]))
    return [ew(b, "mul", g, signs), None]


@rule(P + "math.fmod", P + "mod")
@_elementwise
def _remainder(b: Builder, op: OpView, g: Value, act: list[bool]) -> list[Optional[Value]]:
    # fmod(a, d) = a - trunc(a / d) * d; Python's a % d (np.mod) = a - floor(a / d) * d
    a, d = op.operands
    rounding = "trunc" if op.name == P + "math.fmod" else "floor"
    dd = neg(b, ew(b, "mul", g, _math(b, rounding, ew(b, "div", a, d)))) if act[1] else None
    return [g if act[0] else None, dd]


@rule(P + "floordiv", P + "math.floor", P + "math.ceil", P + "math.trunc", P + "math.rint", P + "math.sign")
def _steps(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [None]


# ---------------------------------------------------------------- reductions
def _spread(b: Builder, op: OpView, g: Value) -> Value:
    """``g`` (the reduction's adjoint) stretched back over the reduced axes to the operand's shape."""
    a = op.operands[0]
    axis = op.attrs.get("axis")
    if axis is not None and not op.attrs.get("keepdims"):
        return arr(b, "broadcast", [g, a], axis=axis)
    return arr(b, "broadcast", [g, a])


def _count(b: Builder, op: OpView) -> Value:
    """How many elements each result of a mean averages, as a float."""
    a = op.operands[0]
    axis = op.attrs.get("axis")
    axes = range(a.type.rank) if axis is None else [axis]
    n: Optional[Value] = None
    for k in axes:
        d = b.op1("dim", [a], I64, axis=k)
        n = d if n is None else build.mul(b, n, d)
    assert n is not None
    return build.cast(b, n, F64)


@rule(P + "sum")
def _sum(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [_spread(b, op, g) if active[0] else None]


@rule(P + "mean")
def _mean(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    if not active[0]:
        return [None]
    return [_spread(b, op, ew(b, "div", g, _count(b, op)))]


@rule(P + "max", P + "min")
def _max_min(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # The adjoint is split evenly among the elements equal to the extremum, as JAX does, so
    # that k ties share it instead of each taking all of it (README, "Rules at the edges").
    if not active[0]:
        return [None]
    hit = arr(b, "eq", [op.operands[0], _spread(b, op, op.result)])
    ties = arr(b, "sum", [arr(b, "where", [hit, _f(b, 1.0), _f(b, 0.0)])], **_reduced(op))
    return [arr(b, "where", [hit, _spread(b, op, ew(b, "div", g, ties)), _f(b, 0.0)])]


@rule(P + "prod")
def _prod(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # The product of the other entries, not prod / x: right where an entry is 0 (one zero gets
    # the product of the rest, the others 0; two zeros give 0 everywhere).
    if not active[0]:
        return [None]
    a = op.operands[0]
    axis = op.attrs.get("axis")
    others = arr(b, "prod_others", [a], **({"axis": axis} if axis is not None and a.type.rank == 2 else {}))
    return [ew(b, "mul", _spread(b, op, g), others)]


@rule(P + "cumsum")
def _cumsum(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # Element k of a running sum adds x[0..k]: x[j] gets the adjoints of k >= j, the running sum
    # of g from the end.
    if not active[0]:
        return [None]
    reverse = {} if op.attrs.get("reverse") else {"reverse": True}
    return [arr(b, "cumsum", [g], axis=op.attrs["axis"], **reverse)]


@rule(P + "roll")
def _roll(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # Rolling moves each entry shift places along the axis: its adjoint moves them back.
    if not active[0]:
        return [None, None]
    return [arr(b, "roll", [g, build.neg(b, op.operands[1])], axis=op.attrs["axis"]), None]  # type: ignore


@rule(P + "pad")
def _pad(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # The padded array holds a's entries in its interior and, around them, copies of a's entries
    # (their adjoints added back to those entries: arr.unpad) or a constant (whose adjoint is the
    # sum of the padding's: all of g less the interior's).
    widths = _widths(op, g)
    mode = op.attrs["mode"]  # type: ignore[attr-defined]
    contribs: Contribs = [None] * len(op.operands)
    if mode != "constant":
        if active[0]:
            contribs[0] = arr(b, "unpad", [g, *widths], mode=mode)
        return contribs
    bounds: list[Value] = []
    for axis in range(g.type.rank):  # type: ignore[attr-defined]
        lo, hi = widths[2 * axis], widths[2 * axis + 1]
        extent, c = b.op1("dim", [g], I64, axis=axis), build.const_int(hi)
        # (extent - c as extent + (-c), the form a slice's bound from the end is read back as: d_up[1:-1])
        bounds += [lo, build.sub(b, extent, hi) if c is None else build.add(b, extent, build.const(b, -c, I64))]
    inner = arr(b, "slice", [g, *bounds], axes=["r"] * g.type.rank)  # type: ignore[attr-defined]
    if active[0]:
        contribs[0] = inner
    if active[-1]:
        contribs[-1] = build.sub(b, arr(b, "sum", [g]), arr(b, "sum", [inner]))
    return contribs


@rule(P + "unpad")
def _unpad(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # Linear in g, with np.pad as its adjoint (each entry of g is sent to where np.pad copies it).
    contribs: Contribs = [None] * len(op.operands)
    if active[0]:
        contribs[0] = arr(b, "pad", [g, *_widths(op, g)], mode=op.attrs["mode"])  # type: ignore[attr-defined]
    return contribs


def _widths(op: OpView, g: Value) -> list[Value]:
    """The widths of ``arr.pad``/``arr.unpad`` (two per axis of ``g``), each fetched where the
    reverse sweep reads it (the array padded is not: its adjoint needs none of its values)."""
    return [op.operands[k] for k in range(1, 1 + 2 * g.type.rank)]  # type: ignore[attr-defined]


def _reduced(op: OpView) -> dict:
    """The ``axis``/``keepdims`` attributes of a reduction, to reduce the same way."""
    return {k: op.attrs[k] for k in ("axis", "keepdims") if op.attrs.get(k) is not None}


# ---------------------------------------------------------------- products
def _t(b: Builder, x: Value) -> Value:
    return arr(b, "transpose", [x])


@rule(P + "matmul")
def _matmul(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    x, y = op.operands[0], op.operands[1]
    ranks = (x.type.rank, y.type.rank)
    dx = dy = None
    if ranks == (1, 1):  # a dot product: g is a scalar
        dx = ew(b, "mul", g, y) if active[0] else None
        dy = ew(b, "mul", g, x) if active[1] else None
    elif ranks == (2, 1):
        dx = arr(b, "outer", [g, y]) if active[0] else None
        dy = arr(b, "matmul", [_t(b, x), g]) if active[1] else None
    elif ranks == (1, 2):
        dx = arr(b, "matmul", [y, g]) if active[0] else None
        dy = arr(b, "outer", [x, g]) if active[1] else None
    else:
        dx = arr(b, "matmul", [g, _t(b, y)]) if active[0] else None
        dy = arr(b, "matmul", [_t(b, x), g]) if active[1] else None
    return [dx, dy]


@rule(P + "outer")
def _outer(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    x, y = op.operands[0], op.operands[1]
    dx = arr(b, "matmul", [g, y]) if active[0] else None
    dy = arr(b, "matmul", [_t(b, g), x]) if active[1] else None
    return [dx, dy]


@rule(P + "transpose")
def _transpose(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [_t(b, g) if active[0] else None]


@rule(P + "full")
def _full(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [None] * (len(active) - 1) + [arr(b, "sum", [g]) if active[-1] else None]


@rule(P + "reshape")
def _reshape(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    if not active[0]:
        return [None] * len(active)
    a = op.operands[0]
    dims = [b.op1("dim", [a], I64, axis=k) for k in range(a.type.rank)]
    return [arr(b, "reshape", [g, *dims])] + [None] * (len(active) - 1)
