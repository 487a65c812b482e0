"""String parameters that the code compares (``reduction="mean"``): what makes a name a string,
and where one may live.

A parameter compared with string literals (``==``, ``!=``, ``in``/``not in`` a tuple, list or
set of them) or with one as its default is a string (the IR's ``str``, ``py_types``); the
lowering (``py_expr.string_compare``) turns each comparison into ``eq``/``ne`` ops of strings.
A string chooses branches and is never differentiated, and the reverse sweep has it where it
has the parameters: one that a loop changes (carried from one iteration to the next, or chosen
in the loop by an ``if``) would have to be taped, which Numba cannot do with strings; it is a
located error (the comparisons made of it can be kept in booleans instead).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from ..diagnostics import Diagnostic
from ..ssa.ir import Function
from ..ssa.slots import slots
from ..ssa.structured import in_loop
from ..ssa.types import STR


def is_string(node: Optional[cst.BaseExpression]) -> bool:
    """Whether ``node`` is a string literal (``"mean"``, ``'l2'``; not an f-string)."""
    return isinstance(node, cst.SimpleString) or (
        isinstance(node, cst.ConcatenatedString) and is_string(node.left) and is_string(node.right))


def string_set(node: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The items of a tuple, list or set of string literals (``("a", "b")``), or None."""
    if not isinstance(node, (cst.Tuple, cst.List, cst.Set)) or not node.elements:
        return None
    items = [e.value for e in node.elements]
    return items if all(is_string(v) for v in items) else None


def string_compared(node: cst.Comparison) -> list[str]:
    """The names ``node`` compares with strings: ``mode == "a"``, ``"a" != mode``, ``mode in ("a",
    "b")`` (a tuple, list or set of string literals)."""
    out = []
    left = node.left
    for target in node.comparisons:
        right = target.comparator
        if isinstance(target.operator, (cst.In, cst.NotIn)):
            if isinstance(left, cst.Name) and string_set(right) is not None:
                out.append(left.value)
        elif isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            for x, y in ((left, right), (right, left)):
                if isinstance(x, cst.Name) and is_string(y):
                    out.append(x.value)
        left = right
    return out


def strings_loops_change(fn: Function) -> list[Diagnostic]:
    """A located error for each string that a loop of ``fn`` changes (see the module's docstring):
    a string a loop carries, or one an ``if`` inside a loop chooses."""
    problems = []
    named: set[str] = set()  # one error per string (a loop and the if in it that chooses it)
    for op in fn.walk():
        for slot in slots(op) if op.name in ("for", "while") or in_loop(op) else ():
            target = slot.targets[-1]
            if target.type != STR:
                continue
            name = target.name_hint.split(".")[0] or "a string"
            if name in named:
                continue
            named.add(name)
            problems.append(Diagnostic(
                f"'{name}' is a string that this loop changes, which the gradient would have to keep for each "
                "iteration", op.loc, hint=f"compare it where it is set and keep the result in a boolean "
                f"(is_mean = {name} == \"mean\"), or choose the string before the loop"))
    return problems
