"""Which jumps a C statement may take, and how a ``switch`` body splits into runs of cases.

Lowering needs these static facts before it lowers a statement: a statement that may jump
(``break``, ``continue``, ``return``) makes the rest of its block run under a guard, and a
loop whose body never breaks or returns can stay a counted ``for``. A ``switch`` takes part:
a ``break`` inside it leaves the switch (not the loop around it), while its ``continue`` and
``return`` leave the enclosing loop or function.

A switch body is read as C does: each ``case``/``default`` label starts a group of statements
(labels written one after the other share one group); a group whose statements can finish
falls through into the next one, so groups form *chains*, each ending at a group that always
jumps (``break;``, ``return``) or at the end of the switch. Chains never overlap: the value
picks one chain (the one holding its label, or the one holding ``default``) and where in it
to start. ``c_switch`` lowers that structure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from pycparser import c_ast

from .structured import BREAK, CONTINUE, RETURN, Exits

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


def statements(node: Optional[c_ast.Node]) -> list[c_ast.Node]:
    if node is None:
        return []
    if isinstance(node, c_ast.Compound):
        return list(node.block_items or [])
    return [node]


def stmt_exits(st: c_ast.Node) -> Exits:
    if isinstance(st, c_ast.Return):
        return Exits(frozenset({RETURN}), True)
    if isinstance(st, c_ast.Break):
        return Exits(frozenset({BREAK}), True)
    if isinstance(st, c_ast.Continue):
        return Exits(frozenset({CONTINUE}), True)
    if isinstance(st, c_ast.If):
        t = block_exits(statements(st.iftrue))
        e = block_exits(statements(st.iffalse))
        return Exits(t.may | e.may, t.always and e.always)
    if isinstance(st, c_ast.Compound):
        return block_exits(statements(st))
    if isinstance(st, _LOOPS):
        return Exits(block_exits(statements(st.stmt)).may & {RETURN}, False)
    if isinstance(st, c_ast.Switch):
        return switch_exits(st)
    if isinstance(st, Arm):
        e = block_exits(st.body)
        return Exits(e.may, e.always and st.cond is None)
    return Exits()


def block_exits(items: Sequence[c_ast.Node]) -> Exits:
    may: frozenset[str] = frozenset()
    for st in items:
        e = stmt_exits(st)
        may |= e.may
        if e.always:
            return Exits(may, True)
    return Exits(may, False)


# -- switch ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Group:
    """The statements after one or more adjacent labels of a switch, up to the next label."""

    labels: tuple[c_ast.Node, ...]  # the case values' expressions
    default: bool  # one of the labels is ``default``
    body: tuple[c_ast.Node, ...]
    at: c_ast.Node  # the first label, for locations

    @property
    def jumps(self) -> bool:
        """Control never falls out of the group into the next one."""
        return block_exits(self.body).always

    @property
    def lowered_body(self) -> list[c_ast.Node]:
        """The body without a final ``break``: where the group ends, so does its chain."""
        body = list(self.body)
        return body[:-1] if body and isinstance(body[-1], c_ast.Break) else body


def switch_groups(st: c_ast.Switch) -> tuple[list[c_ast.Node], list[Group]]:
    """The statements before the first label (never run), and the groups in source order."""
    before: list[c_ast.Node] = []
    groups: list[Group] = []
    labels: list[c_ast.Node] = []
    default = False
    first: Optional[c_ast.Node] = None
    for item in statements(st.stmt):
        if not isinstance(item, (c_ast.Case, c_ast.Default)):
            if groups:  # pycparser files these under the last label already; kept for safety
                g = groups[-1]
                groups[-1] = Group(g.labels, g.default, (*g.body, item), g.at)
            else:
                before.append(item)
            continue
        first = first or item
        if isinstance(item, c_ast.Case):
            labels.append(item.expr)
        else:
            default = True
        if item.stmts:
            groups.append(Group(tuple(labels), default, tuple(item.stmts), first))
            labels, default, first = [], False, None
    if first is not None:  # labels at the very end: an empty group
        groups.append(Group(tuple(labels), default, (), first))
    return before, groups


def chains(groups: list[Group]) -> list[list[Group]]:
    """The groups cut after each group that always jumps (see the module docstring)."""
    out: list[list[Group]] = [[]]
    for g in groups:
        out[-1].append(g)
        if g.jumps:
            out.append([])
    return [c for c in out if c]


def switch_exits(st: c_ast.Switch) -> Exits:
    """A ``break`` inside ends the switch only; the switch always jumps when every value reaches
    a ``return`` or ``continue`` (a ``default`` exists, nothing breaks, the last group jumps)."""
    _, groups = switch_groups(st)
    may: frozenset[str] = frozenset()
    for g in groups:
        may |= block_exits(g.body).may
    always = bool(groups) and any(g.default for g in groups) and BREAK not in may and groups[-1].jumps
    return Exits(may - {BREAK}, always)


def nested_label(items: Sequence[c_ast.Node]) -> Optional[c_ast.Node]:
    """A ``case``/``default`` label inside a nested statement of a switch body (Duff's device)."""
    stack = list(items)
    while stack:
        n = stack.pop()
        if isinstance(n, (c_ast.Case, c_ast.Default)):
            return n
        if isinstance(n, c_ast.Switch):
            continue  # its labels are its own
        stack += [child for _, child in n.children()]
    return None


class Arm(c_ast.Node):
    """A synthetic statement: a group of a chain, run when ``cond`` holds (None: always). The
    condition is ``(value, labels, negate)``: the switch's value is (negate: is not) one of the
    labels. Lowered by ``c_switch``."""

    __slots__ = ("body", "cond", "coord", "__weakref__")
    attr_names = ()

    def __init__(self, body: list[c_ast.Node], cond, coord) -> None:
        self.body = body
        self.cond = cond
        self.coord = coord

    def children(self):
        return tuple((f"body[{k}]", n) for k, n in enumerate(self.body))
