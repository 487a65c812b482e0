"""Python's spelling of the expression trees (``s2sad.emit.expr``): precedence, and ``max``/``min``.

Printing follows Python's precedence and associativity table, so parentheses
appear exactly where the tree needs them: ``a - (b - c)`` keeps its
parentheses (floating-point arithmetic is not associative, so the tree's shape
is the evaluation order and must survive), ``-x ** 2`` needs none (``**``
binds tighter than unary minus) while ``(-x) ** 2`` does; ``a < b and b <= c``
prints as the chain ``a < b <= c``. Spacing and line breaks are ``formatting``'s
(``x**2``, ``-(x**2)``, ``v[i * d :]``, as ``ruff format`` writes them).

``if_exp`` is the conditional as Python spells it best: a choice of the larger
or smaller of its comparison's operands is Python's ``max``/``min`` (C has
``emit_c.cexpr.c_if_exp``). ``first_hoistable`` orders the subexpressions a
long line may lose to temporaries by their printed length.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..emit.expr import (
    Attribute,
    BinOp,
    BoolOp,
    Call,
    Compare,
    Expr,
    IfExp,
    ListLit,
    Lit,
    Name,
    Range,
    Slice,
    Subscript,
    Tuple,
    Unary,
    call,
    hoistable,
    literal_value,
)

# Python's precedence levels, loosest first (the Python reference, "Operator precedence").
P_TUPLE = 0
P_COND = 1  # a if c else b
P_OR = 2
P_AND = 3
P_NOT = 4
P_CMP = 5  # comparisons (non-associative here: chaining would change the meaning)
P_BOR = 6  # |
P_BXOR = 7  # ^
P_BAND = 8  # &
P_SHIFT = 9  # << >>
P_ADD = 10
P_MUL = 11
P_UNARY = 12  # -x
P_POW = 13
P_PRIMARY = 15  # calls, subscripts, attributes
P_ATOM = 16

_BIN_PREC = {"+": P_ADD, "-": P_ADD, "*": P_MUL, "/": P_MUL, "//": P_MUL, "%": P_MUL, "@": P_MUL, "**": P_POW,
             "|": P_BOR, "^": P_BXOR, "&": P_BAND, "<<": P_SHIFT, ">>": P_SHIFT}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def if_exp(cond: Expr, body: Expr, orelse: Expr) -> Expr:
    """``body if cond else orelse``, as ``max``/``min`` when it picks the larger/smaller of its
    comparison's operands.

    Python's ``max(b, a)`` is ``a if a > b else b`` exactly (CPython and Numba both
    compare the later argument with ``>``), so the strict forms are exact. For
    ``a if a >= b else b`` the result of ``max(b, a)`` differs only when ``a == b``,
    where both are the same number (up to the sign of a zero).
    """
    v = literal_value(cond)
    if isinstance(v, bool):
        return body if v else orelse
    if body == orelse:
        return body
    if isinstance(cond, Unary) and cond.op == "not":
        return if_exp(cond.operand, orelse, body)
    if isinstance(cond, Compare) and cond.op not in ("==", "!="):
        rel = None
        if (cond.left, cond.right) == (body, orelse):
            rel = cond.op
        elif (cond.left, cond.right) == (orelse, body):
            rel = _FLIP[cond.op]
        if rel in (">", ">="):
            return call("max", orelse, body)
        if rel in ("<", "<="):
            return call("min", orelse, body)
    return IfExp(cond, body, orelse)


@dataclass
class Printer:
    """Prints expressions; records which modules (``math``, ``np``) they refer to."""

    modules: set[str] = field(default_factory=set)
    # Each expression's text, by identity, when one printer prints many parts of one expression
    # (``first_hoistable``: every sub-expression of a sum 2,000 terms deep, each printed again
    # with all of its own sub-expressions, was quadratic in nodes). None: printed afresh.
    memo: Optional[dict[int, tuple[str, int]]] = None

    def __call__(self, e: Expr, min_prec: int = P_TUPLE) -> str:
        text, prec = self._printed(e)
        return f"({text})" if prec < min_prec else text

    def prec(self, e: Expr) -> int:
        return self._printed(e)[1]

    def _printed(self, e: Expr) -> tuple[str, int]:
        if self.memo is None:
            return self._print(e)
        found = self.memo.get(id(e))
        if found is None:
            found = self.memo[id(e)] = self._print(e)
        return found

    def _print(self, e: Expr) -> tuple[str, int]:
        p = self.__call__
        if isinstance(e, Name):
            if e.id in ("math", "np", "numba", "MPI"):
                self.modules.add(e.id)
            return e.id, P_ATOM
        if isinstance(e, Lit):
            return e.text, P_ATOM
        if isinstance(e, BinOp):
            prec = _BIN_PREC[e.op]
            if e.op == "**":  # right-associative; the base must be a primary
                return f"{p(e.left, P_PRIMARY)} ** {p(e.right, P_UNARY)}", prec
            if prec < P_ADD:  # a bit operation: the operators inside get parentheses, as in C's output
                left = prec if isinstance(e.left, BinOp) and e.left.op == e.op else P_UNARY
                return f"{p(e.left, left)} {e.op} {p(e.right, P_UNARY)}", prec
            return f"{p(e.left, prec)} {e.op} {p(e.right, prec + 1)}", prec
        if isinstance(e, Compare):
            return f"{p(e.left, P_CMP + 1)} {e.op} {p(e.right, P_CMP + 1)}", P_CMP
        if isinstance(e, BoolOp):
            prec = P_AND if e.op == "and" else P_OR
            if e.op == "and":
                return " and ".join(self._conjuncts(e)), prec
            # `and`/`or` are associative on bools; a mixed chain gets parentheses for the reader.
            return f"{self._bool_side(e.left, e.op, prec)} {e.op} {self._bool_side(e.right, e.op, prec)}", prec
        if isinstance(e, Unary):
            if e.op == "not":
                # `not (a < b)`: legal without parentheses, but easily misread as `(not a) < b`
                return f"not {p(e.operand, P_CMP + 1)}", P_NOT
            inner = p(e.operand, P_UNARY)
            if isinstance(e.operand, Unary) or inner.startswith("-"):
                inner = f"({inner})"  # `-(-x)`, never `--x`
            return f"{e.op}{inner}", P_UNARY  # - or ~
        if isinstance(e, Attribute):
            return f"{p(e.value, P_PRIMARY)}.{e.attr}", P_PRIMARY
        if isinstance(e, Call):
            args = [p(a, P_COND) for a in e.args] + [f"{k}={p(v, P_COND)}" for k, v in e.kwargs]
            return f"{p(e.func, P_PRIMARY)}({', '.join(args)})", P_PRIMARY
        if isinstance(e, Subscript):
            index = ", ".join(p(i, P_COND) for i in e.index)
            return f"{p(e.value, P_PRIMARY)}[{index}]", P_PRIMARY
        if isinstance(e, IfExp):
            # a chain in the else branch needs no parentheses (Python nests them so), and a long one
            # must have none: Python parses 200 nested parentheses at most (doorfuzz seed 16950125)
            return f"{p(e.body, P_OR)} if {p(e.cond, P_OR)} else {p(e.orelse, P_COND)}", P_COND
        if isinstance(e, Range):
            lo = p(e.lower, P_COND) if e.lower is not None else ""
            hi = p(e.upper, P_COND) if e.upper is not None else ""
            return f"{lo}:{hi}", P_COND
        if isinstance(e, Slice):
            return f"{p(e.lower, P_COND)}:", P_COND  # only ever an index
        if isinstance(e, ListLit):
            return f"[{', '.join(p(x, P_COND) for x in e.elts)}]", P_ATOM
        if isinstance(e, Tuple):
            if len(e.elts) == 1:
                return f"({p(e.elts[0], P_COND)},)", P_ATOM
            return ", ".join(p(x, P_COND) for x in e.elts), P_TUPLE
        raise TypeError(e)

    def _conjuncts(self, e: Expr) -> list[str]:
        """The operands of an ``and`` chain; ``a < b and b <= c`` prints as ``a < b <= c``."""
        flat: list[Expr] = []

        def visit(x: Expr) -> None:
            if isinstance(x, BoolOp) and x.op == "and":
                visit(x.left)
                visit(x.right)
            else:
                flat.append(x)

        visit(e)
        chains: list[list] = []  # [operands, ops] per comparison chain, or [expr]
        for x in flat:
            last = chains[-1] if chains else None
            if (
                isinstance(x, Compare)
                and last is not None
                and len(last) == 2
                and last[0][-1] == x.left
                and _direction(last[1][-1]) == _direction(x.op) != 0
            ):
                last[0].append(x.right)
                last[1].append(x.op)
            elif isinstance(x, Compare):
                chains.append([[x.left, x.right], [x.op]])
            else:
                chains.append([x])
        out = []
        for c in chains:
            if len(c) == 1:
                out.append(self._bool_side(c[0], "and", P_AND))
            else:
                operands, ops = c
                text = self(operands[0], P_CMP + 1)
                for op, x in zip(ops, operands[1:]):
                    text += f" {op} {self(x, P_CMP + 1)}"
                out.append(text)
        return out

    def _bool_side(self, side: Expr, op: str, prec: int) -> str:
        if isinstance(side, BoolOp) and side.op != op:
            return f"({self(side)})"
        return self(side, prec)


def _direction(op: str) -> int:
    return 1 if op in ("<", "<=") else -1 if op in (">", ">=") else 0


def first_hoistable(e: Expr, exclude: Optional[Expr] = None) -> list[tuple[Expr, int]]:
    """Non-leaf subexpressions of ``e`` that may move into a temporary, largest first, each with
    the length of its text (printed once here: a caller printing each again was quadratic)."""
    printer = Printer(memo={})  # (``e`` holds every node printed: their ids stay theirs)
    cands: list[Expr] = []
    seen: set[tuple[type, str]] = set()  # each one once: by kind and text (equal trees print alike),
    for c in hoistable(e):  # not by comparing trees with each other (quadratic in a long sum's terms)
        if isinstance(c, (Name, Lit)) or c is exclude:
            continue
        if isinstance(c, Attribute) or (isinstance(c, Unary) and isinstance(c.operand, (Name, Lit))):
            continue  # `math.inf`, `-x`: nothing to gain
        key = (type(c), printer(c))
        if key not in seen:
            seen.add(key)
            cands.append(c)
    return sorted(((c, len(printer(c))) for c in cands), key=lambda cn: -cn[1])
