"""Expressions as small immutable trees, and the exact algebra the emitters build them with.

Every emitter turns IR values into these trees (inlining single-use values into
their users) and prints them with its own precedence table (Python's in
``emit_py.printer``, C's in ``emit_c.cexpr``); an emitter may add node types of
its own (C's casts and increments), which ``replace`` and ``walk`` handle
generically. Literals keep one spelling inside the tree, Python's (``True``,
``0.5``, ``math.inf`` as an attribute of ``math``), so that the constructors
here can read and fold them; each printer spells them for its language.

The smart constructors make only rewrites that change no bit of the result and
read better: ``a + -b`` is ``a - b`` and ``a - -b`` is ``a + b`` (IEEE 754
defines ``x - y`` as ``x + (-y)``), ``n - 1 + 1`` is ``n`` on integers,
``not a == b`` is ``a != b``, a comparison of two literals is its value.

Trees are frozen dataclasses, so structurally equal subtrees compare equal:
the emitters use that to recognise ``d_x[i] = d_x[i] + g`` as ``d_x[i] += g``
and to hoist a repeated subexpression once when it breaks a long line.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import json
import math
from dataclasses import dataclass
from typing import Iterator, Optional, Union


class Expr:
    """Base of expression nodes."""

    def children(self) -> tuple["Expr", ...]:
        return ()


@dataclass(frozen=True)
class Name(Expr):
    id: str


@dataclass(frozen=True)
class Lit(Expr):
    """A non-negative literal (negative numbers are ``Unary('-', Lit)``)."""

    text: str


@dataclass(frozen=True)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr

    def children(self):
        return (self.left, self.right)


@dataclass(frozen=True)
class Compare(Expr):
    op: str
    left: Expr
    right: Expr
    total: bool = False  # integer operands: ``not a < b`` is ``a >= b`` (no NaN)

    def children(self):
        return (self.left, self.right)


@dataclass(frozen=True)
class BoolOp(Expr):
    op: str  # "and" | "or"
    left: Expr
    right: Expr

    def children(self):
        return (self.left, self.right)


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # "-" | "not"
    operand: Expr

    def children(self):
        return (self.operand,)


@dataclass(frozen=True)
class Attribute(Expr):
    value: Expr
    attr: str

    def children(self):
        return (self.value,)


@dataclass(frozen=True)
class Call(Expr):
    func: Expr
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()

    def children(self):
        return (self.func, *self.args, *(v for _, v in self.kwargs))


@dataclass(frozen=True)
class Subscript(Expr):
    value: Expr
    index: tuple[Expr, ...]

    def children(self):
        return (self.value, *self.index)


@dataclass(frozen=True)
class Slice(Expr):
    """``lower:`` in a subscript: ``x[k:]`` is a view of ``x`` from element ``k`` on."""

    lower: Expr

    def children(self):
        return (self.lower,)


@dataclass(frozen=True)
class Range(Expr):
    """``lower:upper`` in a subscript, either side may be left out (``a[1:-1]``, ``a[:, j]``)."""

    lower: Optional[Expr] = None
    upper: Optional[Expr] = None

    def children(self):
        return tuple(x for x in (self.lower, self.upper) if x is not None)


@dataclass(frozen=True)
class IfExp(Expr):
    """``body if cond else orelse``: lazy, so nothing is hoisted out of its branches."""

    cond: Expr
    body: Expr
    orelse: Expr

    def children(self):
        return (self.cond, self.body, self.orelse)


@dataclass(frozen=True)
class Tuple(Expr):
    elts: tuple[Expr, ...]

    def children(self):
        return self.elts


@dataclass(frozen=True)
class ListLit(Expr):
    """``[a, b, c]`` (Python's array literals: ``np.array([0.1, 0.5])``)."""

    elts: tuple[Expr, ...]

    def children(self):
        return self.elts


# -- constructors ---------------------------------------------------------------


def module_attr(module: str, attr: str) -> Expr:
    return Attribute(Name(module), attr)


def call(func: Union[str, Expr], *args: Expr, **kwargs: Expr) -> Call:
    f = func if isinstance(func, Expr) else _dotted(func)
    return Call(f, tuple(args), tuple(kwargs.items()))


def _dotted(path: str) -> Expr:
    parts = path.split(".")
    e: Expr = Name(parts[0])
    for p in parts[1:]:
        e = Attribute(e, p)
    return e


def number(value: Union[int, float, bool, str]) -> Expr:
    """A literal: ``0.5``, ``1e-08``, ``3``, ``True``, ``-1.0`` (unary minus), ``math.inf``; a
    string parameter's ``"mean"`` (in double quotes, as ruff formats it)."""
    if isinstance(value, str):
        return Lit(json.dumps(value, ensure_ascii=False))
    if isinstance(value, bool):
        return Lit("True" if value else "False")
    if isinstance(value, float):
        if math.isnan(value):
            return module_attr("math", "nan")
        if math.isinf(value):
            e = module_attr("math", "inf")
            return Unary("-", e) if value < 0 else e
        if math.copysign(1.0, value) < 0:
            return Unary("-", Lit(repr(-value)))
        return Lit(repr(value))
    if value < 0:
        return Unary("-", Lit(str(-value)))
    return Lit(str(value))


def _strip_sign(e: Expr) -> Optional[Expr]:
    """``x`` when ``e`` is ``-x``, or a product/quotient whose first factor is negated.

    IEEE 754 multiplication and division give a result whose sign is the XOR of
    the operands' signs and whose magnitude ignores them, so ``(-a) * b / c`` is
    exactly ``-(a * b / c)``; integer ``*`` likewise (``//`` is not: it floors).
    """
    if isinstance(e, Unary) and e.op == "-":
        return e.operand
    if isinstance(e, BinOp) and e.op in ("*", "/"):
        inner = _strip_sign(e.left)
        if inner is not None:
            return BinOp(e.op, inner, e.right)
    return None


def _int_literal(e: Expr) -> Optional[int]:
    v = literal_value(e)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def binop(op: str, left: Expr, right: Expr) -> Expr:
    """``left op right`` with exact sign and index-arithmetic tidying.

    ``a + -b`` is ``a - b`` and ``a - -b * c`` is ``a + b * c`` (IEEE 754 defines
    ``x - y`` as ``x + (-y)``). Integer constants of a ``+``/``-`` chain are
    combined: ``n - 1 + 1`` is ``n`` (integer addition is associative, also
    modulo 2**64 under Numba). Operands of one IR op share a type, so an integer
    literal operand means integer arithmetic.
    """
    if op in ("+", "-"):
        stripped = _strip_sign(right)
        if stripped is not None:
            return binop("-" if op == "+" else "+", left, stripped)
        c2 = _int_literal(right)
        if c2 is not None:
            if c2 == 0:
                return left
            if isinstance(left, BinOp) and left.op in ("+", "-"):
                c1 = _int_literal(left.right)
                if c1 is not None:
                    total = (c1 if left.op == "+" else -c1) + (c2 if op == "+" else -c2)
                    return binop("+", left.left, number(total))
    return BinOp(op, left, right)


def affine(terms: list[tuple[int, Expr]], offset: int) -> Expr:
    """``c0 * x0 + c1 * x1 + ... + offset`` for integers, literals combined: the index a
    ``field`` op computes (``4 * i + c + 3``)."""
    out: Optional[Expr] = None
    for c, x in terms:
        value = _int_literal(x)
        if value is not None:
            offset += c * value
            continue
        term = x if c == 1 else BinOp("*", number(c), x)
        out = term if out is None else binop("+", out, term)
    if out is None:
        return number(offset)
    return binop("+", out, number(offset))


def negate(e: Expr) -> Expr:
    """``-e``; ``-(-x)`` is ``x`` and ``-(-a * b)`` is ``a * b`` (see ``_strip_sign``)."""
    stripped = _strip_sign(e)
    if stripped is not None:
        return stripped
    return Unary("-", e)


def square(base: Expr, exponent: Expr) -> Optional[Expr]:
    """``x * x`` for ``x ** 2`` (``pow(x, 2.0)``) where ``x`` is a variable: what a person writes,
    and the same number (C's ``pow``, Python's float power and NumPy's all square by one correctly
    rounded multiplication). None otherwise: a longer base would be written twice."""
    value = literal_value(exponent)
    if isinstance(base, Name) and value == 2 and not isinstance(value, bool):
        return BinOp("*", base, base)
    return None


def literal_value(e: Expr) -> Optional[Union[int, float, bool]]:
    """The number or bool a literal expression stands for (None if it is not a literal)."""
    if isinstance(e, Unary) and e.op == "-" and isinstance(e.operand, Lit):
        v = literal_value(e.operand)
        return None if v is None or isinstance(v, bool) else -v
    if isinstance(e, Lit):
        return _literal_of_text(e.text)
    return None


@functools.lru_cache(maxsize=4096)
def _literal_of_text(text: str) -> Optional[Union[int, float, bool]]:
    """A literal's value, read once per spelling: the printers ask of every literal they print
    (tens of thousands in a large file), and reading one parses it as Python."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


_COMPARE_FN = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


# The smart constructors below make only rewrites that give the same value, and
# exist because linters and compilers rightly reject the naive spellings (`2 > 0`,
# `not a == b`, `True if c else False`).


def compare(op: str, a: Expr, b: Expr, total: bool = False) -> Expr:
    """``a op b``, evaluated when both sides are literals; ``total``: the operands are integers."""
    la, lb = literal_value(a), literal_value(b)
    if la is not None and lb is not None:
        return number(bool(_COMPARE_FN[op](la, lb)))
    return Compare(op, a, b, total)


_COMPLEMENT = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}


def logical_not(e: Expr) -> Expr:
    """``not e``, as its complement where that is exact: ``not a == b`` is ``a != b`` (IEEE
    ``!=`` is the complement of ``==``); ``not i >= n`` is ``i < n`` for integers; and by De
    Morgan, ``not (i >= n or j >= m)`` is ``i < n and j < m`` when each side complements."""
    if isinstance(e, Unary) and e.op == "not":
        return e.operand
    if isinstance(e, Compare) and (e.op in ("==", "!=") or e.total):
        return Compare(_COMPLEMENT[e.op], e.left, e.right, e.total)
    if isinstance(e, BoolOp):
        a, b = logical_not(e.left), logical_not(e.right)
        if not (isinstance(a, Unary) or isinstance(b, Unary)):
            return BoolOp("or" if e.op == "and" else "and", a, b)
    v = literal_value(e)
    if isinstance(v, bool):
        return number(not v)
    return Unary("not", e)


def bool_op(op: str, a: Expr, b: Expr) -> Expr:
    """``a and b`` / ``a or b`` on bools (eager in the IR, so dropping a pure side is exact)."""
    for x, y in ((a, b), (b, a)):
        v = literal_value(x)
        if isinstance(v, bool):
            if op == "and":
                return y if v else number(False)
            return number(True) if v else y
    return BoolOp(op, a, b)


# -- queries --------------------------------------------------------------------


def walk(e: Expr) -> Iterator[Expr]:
    """``e`` and every expression in it, in pre-order (a stack: see parse.c_expr.walk)."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children()))


def names_in(e: Expr) -> list[str]:
    """Identifiers the expression reads, in first-use order.

    Kept on the expression once asked (expressions never change): the C emitter's placement of
    declarations and its dead-code sweep ask it of every statement's expressions several times,
    and a subexpression already asked is not walked again."""
    found = e.__dict__.get(_NAMES)
    if found is None:
        seen: dict[str, None] = {}
        stack = [e]
        while stack:
            node = stack.pop()
            known = node.__dict__.get(_NAMES)
            if known is not None:
                seen.update(dict.fromkeys(known))
            elif isinstance(node, Name):
                seen.setdefault(node.id, None)
            else:
                stack.extend(reversed(node.children()))
        found = e.__dict__[_NAMES] = tuple(seen)
    return list(found)


_NAMES = "_names_in"  # (the attribute names_in keeps its answer in)


def hoistable(e: Expr) -> Iterator[Expr]:
    """Subexpressions that may be evaluated earlier into a temporary: none under a lazy part. In
    pre-order, by a stack (nested generators were quadratic in a long sum's terms)."""
    stack = list(reversed(_eager_children(e)))
    while stack:
        c = stack.pop()
        if not isinstance(c, (Slice, Range)):  # `k:` is no expression of its own; `k` may move
            yield c
        stack.extend(reversed(_eager_children(c)))


def _eager_children(e: Expr) -> tuple[Expr, ...]:
    """The children ``e`` always evaluates. Not an if-expression's branches, the right operand
    of ``and``/``or`` (C's ``&&``/``||``): evaluated early, they would
    run where the program does not run them (a call that fails there: fuzz seed 10100732)."""
    if isinstance(e, IfExp):
        return (e.cond,)
    if isinstance(e, BoolOp):
        return (e.left,)
    return e.children()


def replace(e: Expr, old: Expr, new: Expr) -> Expr:
    """``e`` with every subtree equal to ``old`` replaced by ``new``."""
    if e == old:
        return new
    if isinstance(e, (Name, Lit)):
        return e
    if isinstance(e, BinOp):  # type(e): a subclass (NumPy's ArrayBinOp) keeps its kind
        return type(e)(e.op, replace(e.left, old, new), replace(e.right, old, new))
    if isinstance(e, Compare):
        return Compare(e.op, replace(e.left, old, new), replace(e.right, old, new))
    if isinstance(e, BoolOp):
        return BoolOp(e.op, replace(e.left, old, new), replace(e.right, old, new))
    if isinstance(e, Unary):
        return Unary(e.op, replace(e.operand, old, new))
    if isinstance(e, Attribute):
        return Attribute(replace(e.value, old, new), e.attr)
    if isinstance(e, Call):
        return Call(
            replace(e.func, old, new),
            tuple(replace(a, old, new) for a in e.args),
            tuple((k, replace(v, old, new)) for k, v in e.kwargs),
        )
    if isinstance(e, Subscript):
        return Subscript(replace(e.value, old, new), tuple(replace(i, old, new) for i in e.index))
    if isinstance(e, IfExp):
        # Only the condition: the branches are lazy and are never hoisted from.
        return IfExp(replace(e.cond, old, new), e.body, e.orelse)
    if isinstance(e, (Tuple, ListLit)):
        return type(e)(tuple(replace(x, old, new) for x in e.elts))
    if dataclasses.is_dataclass(e):
        # Node types of other emitters (C casts, increments): every Expr field, generically.
        return dataclasses.replace(
            e, **{f.name: _replace_field(getattr(e, f.name), old, new) for f in dataclasses.fields(e)}
        )
    raise TypeError(e)


def _replace_field(value, old: Expr, new: Expr):
    if isinstance(value, Expr):
        return replace(value, old, new)
    if isinstance(value, tuple):
        return tuple(_replace_field(x, old, new) for x in value)
    return value
