"""A counted loop's test, put as the counter against a bound: ``i < bound``.

C code writes the test of a counted loop in many ways: ``i < n``, ``n > i``, and, in
convolutions and stencils, with the counter inside a sum, ``i + kh <= h`` or ``i - 1 < n``. Each
is the same counted loop; read as ``while`` loops, the last ones would keep their counters on
a tape and their tapes would grow as they fill (issue 19: ``conv2d``). A term added to or
taken from the counter moves to the other side, as algebra on integers moves it: the IR's
integers are mathematical ones within the 64 bits counters stay inside (signed overflow is
undefined in C, and unsigned values are read as the signed integers the IR means, which never
wrap below zero), so ``i + kh <= h`` and ``i <= h - kh`` hold for the same ``i``. Only an
integer term moves (a constant or an integer variable): with a floating-point one the two
sides would round differently.
"""

from __future__ import annotations

from typing import Callable, Optional

from pycparser import c_ast

# The comparison seen from the other side: ``n > i`` is ``i < n``.
MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def counter_test(cond: c_ast.Node, name: str, is_int_term: Callable[[c_ast.Node], bool]
                 ) -> Optional[tuple[str, c_ast.Node]]:
    """``(comparison, bound)`` with ``cond`` equal to ``name <comparison> bound``; None when
    ``cond`` does not compare the counter ``name``, alone or plus or minus an integer term
    (``is_int_term``) free of it, against an expression free of it."""
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in MIRRORED):
        return None
    for op, counter_side, other in ((cond.op, cond.left, cond.right), (MIRRORED[cond.op], cond.right, cond.left)):
        if _mentions(other, name):
            continue
        if isinstance(counter_side, c_ast.ID) and counter_side.name == name:
            return op, other
        moved = _moved_term(counter_side, name, is_int_term)
        if moved is not None:
            inverse, term = moved  # name + term <op> other: name <op> other - term
            return op, c_ast.BinaryOp(inverse, other, term, coord=cond.coord)
    return None


def _moved_term(side: c_ast.Node, name: str, is_int_term: Callable[[c_ast.Node], bool]
                ) -> Optional[tuple[str, c_ast.Node]]:
    """(the inverse operator, the term) of ``name + term``, ``term + name`` or ``name - term``."""
    if not (isinstance(side, c_ast.BinaryOp) and side.op in ("+", "-")):
        return None
    inverse = "-" if side.op == "+" else "+"
    if isinstance(side.left, c_ast.ID) and side.left.name == name:
        term = side.right
    elif side.op == "+" and isinstance(side.right, c_ast.ID) and side.right.name == name:
        term = side.left
    else:
        return None
    if _mentions(term, name) or not is_int_term(term):
        return None
    return inverse, term


def _mentions(node: c_ast.Node, name: str) -> bool:
    if isinstance(node, c_ast.ID):
        return node.name == name
    return any(_mentions(child, name) for _, child in node.children())
