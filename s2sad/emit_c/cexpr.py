"""C expressions: the emitter's expression trees printed with C's precedence rules.

The tree nodes are the emitters' shared ones (``s2sad.emit.expr``: names,
literals, binary and unary operators, calls, subscripts, conditionals) plus
the few that only C has: casts and the increments of tape counters. Unary
``*`` and ``&`` reuse ``Unary`` (dereferencing an out-pointer, taking the
address of a local).

Literals keep their Python spelling inside the tree (so the shared smart
constructors can still read and fold them) and are spelled for C when
printed: ``True`` is ``true``; a ``float`` literal (``F32Lit``) gets its
``f`` suffix. Parentheses appear exactly where C's precedence needs them, and
where gcc's ``-Wparentheses`` asks for them (``&&`` inside ``||``, any operator inside a
bitwise one: ``(i + 1) & mask``).

``ctype`` is the C type of an IR type: ``f64`` -> ``double``, ``f32`` -> ``float``, ``i64`` ->
``long``, ``i32`` -> ``int``, ``bool`` -> ``bool``; an array is a pointer to its elements.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..diagnostics import error
from ..emit.expr import (
    Attribute,
    BinOp,
    BoolOp,
    Call,
    Compare,
    Expr,
    IfExp,
    Lit,
    Name,
    Subscript,
    Tuple,
    Unary,
    literal_value,
)
from ..ssa.types import ArrayType, ScalarType, Type

# C's precedence levels, loosest first (C99 6.5).
P_LOWEST = 0
P_COND = 2  # c ? a : b (right-associative)
P_OR = 3
P_AND = 4
P_BOR = 5  # |
P_BXOR = 6  # ^
P_BAND = 7  # &
P_EQ = 8  # == !=
P_REL = 9  # < <= > >=
P_SHIFT = 10  # << >>
P_ADD = 11
P_MUL = 12
P_UNARY = 13  # -x !x *p &x (T)x ++x
P_POSTFIX = 14  # x[i] f(x) x++
P_ATOM = 15

_BIN_PREC = {"+": P_ADD, "-": P_ADD, "*": P_MUL, "/": P_MUL, "%": P_MUL,
             "|": P_BOR, "^": P_BXOR, "&": P_BAND, "<<": P_SHIFT, ">>": P_SHIFT}
_BITWISE = frozenset({"|", "^", "&", "<<", ">>"})
_CMP_PREC = {"==": P_EQ, "!=": P_EQ, "<": P_REL, "<=": P_REL, ">": P_REL, ">=": P_REL}
_CONSTANTS = {"inf": "INFINITY", "nan": "NAN"}

# The C type of each IR scalar type.
C_TYPES = {"f64": "double", "f32": "float", "i64": "long", "i32": "int", "bool": "bool", "request": "MPI_Request",
           "comm": "MPI_Comm"}


def ctype(t: Type) -> str:
    if isinstance(t, ArrayType):
        return f"{C_TYPES[t.elem.name]} *"
    if isinstance(t, ScalarType) and t.name in C_TYPES:
        return C_TYPES[t.name]
    raise error(f"type {t} has no C equivalent yet")


@dataclass(frozen=True)
class F32Lit(Lit):
    """A ``float`` literal: printed with an ``f`` suffix (``0.5f``)."""


@dataclass(frozen=True)
class Cast(Expr):
    ctype: str
    operand: Expr

    def children(self):
        return (self.operand,)


@dataclass(frozen=True)
class Member(Expr):
    """A struct member: ``value.name``, or ``value->name`` through a pointer."""

    value: Expr
    name: str
    arrow: bool = False

    def children(self):
        return (self.value,)


@dataclass(frozen=True)
class IncDec(Expr):
    """``++x``, ``x++``, ``--x``, ``x--`` (only on tape counters)."""

    op: str  # "++" | "--"
    operand: Expr
    prefix: bool

    def children(self):
        return (self.operand,)


def c_if_exp(cond: Expr, body: Expr, orelse: Expr) -> Expr:
    """``cond ? body : orelse``, folded when the condition is a literal or the branches agree."""
    v = literal_value(cond)
    if isinstance(v, bool):
        return body if v else orelse
    if body == orelse:
        return body
    if isinstance(cond, Unary) and cond.op == "not":
        return c_if_exp(cond.operand, orelse, body)
    return IfExp(cond, body, orelse)


def deref(name: str) -> Expr:
    return Unary("*", Name(name))


def address_of(e: Expr) -> Expr:
    return Unary("&", e)


class CPrinter:
    """Prints expression trees as C (the includes are found from the finished text)."""

    def __call__(self, e: Expr, min_prec: int = P_LOWEST) -> str:
        text, prec = self._print(e)
        return f"({text})" if prec < min_prec else text

    def prec(self, e: Expr) -> int:
        return self._print(e)[1]

    def _print(self, e: Expr) -> tuple[str, int]:
        p = self.__call__
        if isinstance(e, Name):
            return e.id, P_ATOM
        if isinstance(e, F32Lit):
            text = e.text
            if "." not in text and "e" not in text:
                text += ".0"
            return text + "f", P_ATOM
        if isinstance(e, Lit):
            if e.text in ("True", "False"):
                return e.text.lower(), P_ATOM
            return e.text, P_ATOM
        if isinstance(e, BinOp):
            prec = _BIN_PREC[e.op]
            if e.op in _BITWISE:  # every operator inside a bitwise one gets parentheses (-Wparentheses)
                left = P_UNARY if not (isinstance(e.left, BinOp) and e.left.op == e.op) else prec
                return f"{p(e.left, left)} {e.op} {p(e.right, P_UNARY)}", prec
            return f"{p(e.left, prec)} {e.op} {p(e.right, prec + 1)}", prec
        if isinstance(e, Compare):
            prec = _CMP_PREC[e.op]
            return f"{p(e.left, prec)} {e.op} {p(e.right, prec + 1)}", prec
        if isinstance(e, BoolOp):
            prec = P_AND if e.op == "and" else P_OR
            c_op = "&&" if e.op == "and" else "||"
            return f"{self._bool_side(e.left, e.op, prec)} {c_op} {self._bool_side(e.right, e.op, prec)}", prec
        if isinstance(e, Unary):
            op = "!" if e.op == "not" else e.op
            inner = p(e.operand, P_UNARY)
            if op in ("-", "&", "*") and inner.startswith(op) or op == "-" and inner.startswith("--"):
                inner = f"({inner})"  # `-(-x)`, never `--x`
            return f"{op}{inner}", P_UNARY
        if isinstance(e, Cast):
            return f"({e.ctype}){p(e.operand, P_UNARY)}", P_UNARY
        if isinstance(e, IncDec):
            if e.prefix:
                return f"{e.op}{p(e.operand, P_UNARY)}", P_UNARY
            return f"{p(e.operand, P_POSTFIX)}{e.op}", P_POSTFIX
        if isinstance(e, Call):
            args = ", ".join(p(a, P_COND) for a in e.args)
            return f"{p(e.func, P_POSTFIX)}({args})", P_POSTFIX
        if isinstance(e, Subscript):
            index = ", ".join(p(i) for i in e.index)
            return f"{p(e.value, P_POSTFIX)}[{index}]", P_POSTFIX
        if isinstance(e, Member):
            return f"{p(e.value, P_POSTFIX)}{'->' if e.arrow else '.'}{e.name}", P_POSTFIX
        if isinstance(e, IfExp):
            return f"{p(e.cond, P_OR)} ? {p(e.body, P_COND)} : {p(e.orelse, P_COND)}", P_COND
        if isinstance(e, Attribute) and isinstance(e.value, Name) and e.attr in _CONSTANTS:
            return _CONSTANTS[e.attr], P_ATOM
        if isinstance(e, Tuple):
            raise TypeError("C has no tuples")
        raise TypeError(e)

    def _bool_side(self, side: Expr, op: str, prec: int) -> str:
        if isinstance(side, BoolOp) and side.op != op:
            return f"({self(side)})"  # gcc -Wparentheses: `a && b || c` gets its parentheses
        return self(side, prec)


def split_points(e: Expr) -> Optional[tuple[str, int, list[tuple[str, Expr]]]]:
    """How a long expression breaks over lines.

    Returns (kind, precedence, parts): kind "chain" for the left spine of one
    operator precedence (``a + b - c``: ("", a), ("+", b), ("-", c)), "call"
    for the arguments of a call, "cond" for a conditional; None when ``e``
    cannot break.
    """
    if isinstance(e, BinOp):
        prec = _BIN_PREC[e.op]
        parts: list[tuple[str, Expr]] = []
        x: Expr = e
        while isinstance(x, BinOp) and _BIN_PREC[x.op] == prec:
            parts.append((x.op, x.right))
            x = x.left
        parts.append(("", x))
        return "chain", prec, parts[::-1]
    if isinstance(e, BoolOp):
        prec = P_AND if e.op == "and" else P_OR
        parts = []
        x = e
        while isinstance(x, BoolOp) and x.op == e.op:
            parts.append(("&&" if x.op == "and" else "||", x.right))
            x = x.left
        parts.append(("", x))
        return "chain", prec, parts[::-1]
    if isinstance(e, Call) and e.args:
        return "call", P_COND, [("", a) for a in e.args]
    if isinstance(e, IfExp):
        return "cond", P_COND, [("", e.cond), ("?", e.body), (":", e.orelse)]
    return None
