"""Helpers that build scalar IR through a ``Builder``, folding the trivial cases.

Front ends, derivative rules and the adjoint transform all create arithmetic
through these functions, so that ``x * 1.0``, ``0.0 + x``, ``x - 0`` and
``-(-x)`` never reach the output, and arithmetic on two integer constants is
folded at once (trip counts, mirrored loop bounds). Float arithmetic on two
constants is folded too; the result is exactly what Python computes.

Every helper returns the resulting ``Value`` (possibly an operand, unchanged).
"""

from __future__ import annotations

import sys
from math import copysign, isfinite
from typing import Any, Optional, Union

from .attrs import FROM_END
from .gpu import launch_extent
from .interp import c_rem
from .ir import Builder, Value
from .ops import result_type
from .types import BOOL, F64, I64, STR, ScalarType, Type

Number = Union[int, float, bool]


def const_value(v: Value) -> Optional[Number]:
    """The literal behind ``v`` when it is the result of a ``const`` op, else None."""
    op = v.defining_op
    if op is not None and op.name == "const":
        return op.attrs["value"]
    return None


def const_int(v: Value) -> Optional[int]:
    """The integer literal behind ``v`` (not a bool), else None."""
    c = const_value(v)
    return c if isinstance(c, int) and not isinstance(c, bool) else None


def is_const(v: Value, value: Number) -> bool:
    c = const_value(v)
    return c is not None and not isinstance(c, bool) and c == value


def is_zero_of_sign(v: Value, negative: bool) -> bool:
    """Whether ``v`` is a literal zero that is an identity where the other operand may be any
    float, signed zeros included: an integer zero; a float zero only of the sign ``negative``
    says. IEEE's ``+0.0 + -0.0`` is ``+0.0``, so ``x + 0.0`` is not ``x`` when ``x`` is -0.0,
    and ``0.0 - x`` is not ``-x`` when ``x`` is +0.0: a zero's sign changes atan2, copysign and
    division by it, and the primal (which gcc compiles without -ffast-math) keeps it. ``x +
    -0.0`` and ``x - 0.0`` are ``x``, and ``-0.0 - x`` is ``-x``, for every ``x``."""
    c = const_value(v)
    if c is None or isinstance(c, bool) or c != 0:
        return False
    return isinstance(c, int) or (copysign(1.0, c) < 0) == negative


def const(b: Builder, value: Number, type: Type, hint: str = "", **attrs: Any) -> Value:
    """A literal of ``type`` (the value is converted to the type's kind)."""
    assert isinstance(type, ScalarType), type
    if type.is_float:
        value = float(value)
    elif type.is_int:
        value = int(value)
    elif type == STR:
        value = str(value)
    else:
        value = bool(value)
    return b.op1("const", [], type, hint, value=value, **attrs)


def known_sign(v: Value) -> int:
    """1 or -1 when ``v``'s sign is known before it runs (a nonzero constant, a product of CUDA
    launch dimensions, the negation of one); else 0."""
    c = const_int(v)
    if c is not None:
        return (c > 0) - (c < 0)
    if launch_extent(v):
        return 1
    op = v.defining_op
    if op is not None and op.name == "neg":
        return -known_sign(op.operands[0])
    return 0


def macro_attrs(name: str, *operands: Value) -> dict[str, Any]:
    """When ``name(*operands)`` folds a C ``#define`` plus or minus a literal (``STEPS - 1``), the
    attributes that let the folded constant still print so (``macro``, ``macro_offset``)."""
    if name not in ("add", "sub") or len(operands) != 2 or not operands[0].type.is_int:
        return {}
    x, y = (v.defining_op for v in operands)
    if x is None or y is None or x.name != "const" or y.name != "const":
        return {}
    if "macro" in x.attrs and "macro" not in y.attrs:
        step = y.attrs["value"] if name == "add" else -y.attrs["value"]
        return {"macro": x.attrs["macro"], "macro_offset": x.attrs.get("macro_offset", 0) + step}
    if name == "add" and "macro" in y.attrs and "macro" not in x.attrs:
        return {"macro": y.attrs["macro"], "macro_offset": y.attrs.get("macro_offset", 0) + x.attrs["value"]}
    return {}


def _fold(name: str, a: Number, c: Number) -> Optional[Number]:
    try:
        if name == "add":
            return a + c
        if name == "sub":
            return a - c
        if name == "mul":
            return a * c
        if name == "div" and c != 0:
            return a / c
        if name == "floordiv" and c != 0:
            return a // c
        if name == "mod" and c != 0:
            return a % c
        if name == "rem" and c != 0:
            return c_rem(a, c)  # truncated, as C: -7 rem 3 is -1
    except (OverflowError, ZeroDivisionError, ValueError):  # fmod(inf, c) raises ValueError
        return None
    return None


def binary(b: Builder, name: str, x: Value, y: Value, hint: str = "", **attrs: Any) -> Value:
    """``x <name> y`` for an arithmetic op name, with trivial cases folded (``attrs``: the op's,
    when it is made: ``rounding = "any"``)."""
    t = result_type(name, [x.type, y.type])
    cx, cy = const_value(x), const_value(y)
    if cx is not None and cy is not None and not isinstance(cx, bool) and not isinstance(cy, bool):
        folded = _fold(name, cx, cy)
        exact = isinstance(folded, int) or (isinstance(folded, float) and folded.is_integer())
        if folded is not None and (t.is_float or exact) and not (isinstance(folded, int) and abs(folded) >= 2 ** 63):
            # (an integer past 64 bits stays an op: what converts it says what it cannot be)
            return const(b, folded, t, hint, **macro_attrs(name, x, y))
    if name == "add":
        if is_zero_of_sign(y, negative=True):
            return x
        if is_zero_of_sign(x, negative=True):
            return y
    elif name == "sub":
        if is_zero_of_sign(y, negative=False):
            return x
        if is_zero_of_sign(x, negative=True):
            return neg(b, y, hint)
    elif name == "mul":
        if is_const(y, 1):
            return x
        if is_const(x, 1):
            return y
        if is_const(y, -1):
            return neg(b, x, hint)
        if is_const(x, -1):
            return neg(b, y, hint)
    elif name == "div" or (name == "floordiv" and t.is_int):
        # x // 1.0 is floor(x) on floats, not x.
        if is_const(y, 1):
            return x
    elif name == "pow":
        if is_const(y, 1):
            return x
    return b.op1(name, [x, y], t, hint, **attrs)


def add(b: Builder, x: Value, y: Value, hint: str = "") -> Value:
    return binary(b, "add", x, y, hint)


def sub(b: Builder, x: Value, y: Value, hint: str = "") -> Value:
    return binary(b, "sub", x, y, hint)


def mul(b: Builder, x: Value, y: Value, hint: str = "") -> Value:
    return binary(b, "mul", x, y, hint)


def div(b: Builder, x: Value, y: Value, hint: str = "") -> Value:
    return binary(b, "div", x, y, hint)


def accum(b: Builder, arr: Value, idx: list[Value], x: Value) -> None:
    """``arr[idx] += x`` as one ``accum`` op: how reverse mode (and the lowering of whole-array
    accumulations) adds into memory.

    Adding ``-0.0`` changes nothing (``is_zero_of_sign``), and ``add`` folds ``arr[idx] + -0.0``
    to ``arr[idx]``: that case stays the element copied onto itself, as the load, add and store
    these accumulations were spelled with before the op existed made it (so outputs do not change)."""
    if is_zero_of_sign(x, negative=True):
        b.create("store", [arr, *idx, b.op1("load", [arr, *idx], x.type)], [])
        return
    b.create("accum", [arr, *idx, x], [])


def neg(b: Builder, x: Value, hint: str = "") -> Value:
    op = x.defining_op
    if op is not None and op.name == "neg":
        return op.operands[0]
    c = const_value(x)
    if c is not None and not isinstance(c, bool):
        return const(b, -c, x.type, hint)
    return b.op1("neg", [x], x.type, hint)


def cmp(b: Builder, name: str, x: Value, y: Value, hint: str = "") -> Value:
    """A comparison (``lt le gt ge eq ne``): a ``bool``."""
    return b.op1(name, [x, y], BOOL, hint)


def select(b: Builder, c: Value, x: Value, y: Value, hint: str = "") -> Value:
    if x is y:
        return x
    return b.op1("select", [c, x, y], x.type, hint)


def from_end(b: Builder, k: Value, n: Value) -> Value:
    """Python's index ``k`` into an axis of length ``n``: counted from the end where it is
    negative, ``k + n`` (a ``select`` marked ``FROM_END``, which the Python targets drop)."""
    c = const_int(k)
    if c is not None and c >= 0:
        return k
    negative = cmp(b, "lt", k, const(b, 0, k.type))
    return b.create("select", [negative, add(b, k, n), k], [k.type], {FROM_END: True}).results[0]


def cast(b: Builder, x: Value, type: Type, hint: str = "") -> Value:
    if x.type == type:
        return x
    c = const_value(x)
    # int(inf) and int(nan) raise in Python and are undefined in C, and float(10**400) raises
    # OverflowError: left to run as the primal runs
    if c is not None and not (type.is_int and isinstance(c, float) and not isfinite(c)) \
            and not (type.is_float and isinstance(c, int) and abs(c) > sys.float_info.max):
        return const(b, c, type, hint)
    return b.op1("cast", [x], type, hint)


def math(b: Builder, fn: str, *args: Value, hint: str = "") -> Value:
    """A math intrinsic ``math.<fn>(args)``; the result has the first operand's type."""
    return b.op1(f"math.{fn}", list(args), args[0].type, hint)


def to_float(b: Builder, x: Value, type: Type = F64) -> Value:
    """``x`` as a float of ``type`` (ints and bools are cast)."""
    return x if x.type.is_float else cast(b, x, type)


def int_const(b: Builder, value: int) -> Value:
    return const(b, value, I64)
