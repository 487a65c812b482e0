"""The deepest statement nesting s2sad translates: a documented limit, met with a located error.

Branches and loops nest as regions of the IR, and an ``else if`` is an ``if`` in the ``else``
of the one before (in C and in Python's ``elif`` alike), so a chain of them is as deep as it is
long; a conditional expression is a branch too, and so is a chain of them. Analyses that ask,
for each nest, about what it holds or what holds it (liveness, variable sharing, declaration
placement) cost the function's size times its depth: past a few
hundred levels a translation takes minutes. Like clang, which stops at 256 nested brackets,
s2sad refuses deeper statements, at the first one too deep, before any work is done on them.
Python's own compiler stops at 100 levels of indentation, so there only ``elif`` chains reach
the limit.

Expressions are trees as deep as they are long where an operator chains (a sum of N terms is N
deep), and the emitters print them by recursion: a C expression more than ``MAX_EXPRESSION_DEPTH``
syntax nodes deep is refused too (Python's compiler refuses long before).
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Optional, TypeVar

MAX_NESTING = 256
MAX_EXPRESSION_DEPTH = 10_000  # syntax nodes around a node (a C sum of 10,000 terms is that deep)

Node = TypeVar("Node")


def first_too_deep(root: Node, children: Callable[[Node], Iterable[Node]], nests: Callable[[Node], bool],
                   limit: int = MAX_NESTING) -> Optional[Node]:
    """The first node, in source order, with more than ``limit`` nodes that ``nests`` around it
    or at it; None when there is none."""
    return first_too_deep_both(root, children, nests, limit, math.inf)[0]


def first_too_deep_both(root: Node, children: Callable[[Node], Iterable[Node]], nests: Callable[[Node], bool],
                        limit: int = MAX_NESTING,
                        depth_limit: float = MAX_EXPRESSION_DEPTH) -> tuple[Optional[Node], Optional[Node]]:
    """``first_too_deep`` for nesting (``nests``, ``limit``) and for depth in nodes (every node
    nests, ``depth_limit``) in one walk by a stack (the input is deep): the first node too deeply
    nested, or else None and the first node too deep."""
    deepest: Optional[Node] = None
    stack = [(root, 0, 0)]
    while stack:
        node, nesting, depth = stack.pop()
        if nests(node):
            nesting += 1
            if nesting > limit:
                return node, None
        depth += 1
        if depth > depth_limit and deepest is None:
            deepest = node
        stack.extend((c, nesting, depth) for c in reversed(list(children(node))))
    return None, deepest


def message(expression: bool) -> str:
    """The error for the first node too deep: a statement, or a conditional expression (``a if c
    else b``, ``c ? a : b``: a branch as well, and a chain of them as deep as it is long)."""
    what = "conditional expression" if expression else "statement"
    return f"this {what} is nested {MAX_NESTING + 1} levels deep; s2sad translates at most {MAX_NESTING}"


DEEP_EXPRESSION = (f"this expression is nested more than {MAX_EXPRESSION_DEPTH:,} operations deep, more than "
                   "s2sad translates")
DEEP_EXPRESSION_HINT = "split it into several statements (s = a + b, then s += c, ...)"

HINT = ("move the inner part into a function of its own, or write a long else-if chain as a loop over a "
        "table of cases")
