"""Which assignments write a const object, as C's type rules see them: ``x[i] = ...`` of a
``const double *x``, ``a->type = ...`` of a ``const Particle *a``, ``r->m[0] = ...`` of a
``const R *r`` whose ``m`` is a fixed array. A C compiler refuses such a file; s2sad says so at the
assignment rather than print a gradient that assigns the const object too (and fails to compile).

Only what the declarations settle is judged: an lvalue reached through a cast, a call or a
pointer member of unknown type is left to the checks that lower it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Union

from pycparser import c_ast

from .c_types import CType, Member, Record, StructLayout

Aggregate = Union[StructLayout, Record, None]


@dataclass
class _Reached:
    """The object an lvalue has reached so far: how many indexes (or ``*``, ``->``) are left to
    its elements, whether those elements are const, and the struct they are, if any."""

    derefs_left: int
    const: bool
    aggregate: Aggregate
    why: str  # the declaration that makes the elements const, as the message quotes it


def _base_const(spelling: str) -> bool:
    """Whether the elements a declaration reaches are const: ``const double (*)[4]``, ``const V *``."""
    return "const" in spelling.split("*")[0].split("(")[0].split("[")[0].split()


def _root(name: str, t: CType) -> _Reached:
    why = f"'{name}' is declared '{t.spelling.strip()}'"
    if t.kind == "record":
        return _Reached(1 if t.indirect else 0, _base_const(t.spelling), t.record, why)
    if t.kind == "scalar":
        return _Reached(0, _base_const(t.spelling), None, why)
    derefs = len(t.dims) if t.dims else t.spelling.count("*")
    return _Reached(derefs, _base_const(t.spelling), t.layout, why)


def _inner(reached: _Reached, name: str, spelling: str, derefs: int, aggregate: Aggregate,
           through_pointer: bool) -> _Reached:
    """A member's elements: const where the member says so, or (not behind a pointer of its
    own) where the struct is."""
    if _base_const(spelling):
        return _Reached(derefs, True, aggregate, f"the member '{name}' is declared '{spelling.strip()}'")
    inherited = reached.const and not through_pointer
    return _Reached(derefs, inherited, aggregate, reached.why)


def _member(reached: _Reached, name: str) -> Optional[_Reached]:
    """The member ``name`` of the struct reached: a const struct's members are const, and so
    are the elements of its fixed arrays; a pointer member's targets are as it declares them."""
    agg = reached.aggregate
    if isinstance(agg, StructLayout):
        f = next((f for f in agg.fields if f.name == name), None)
        if f is None:
            return None
        return _inner(reached, name, f.spelling, len(f.dims), f.sub, False)
    if isinstance(agg, Record):
        m: Optional[Member] = agg.member(name)
        if m is None:
            return None
        if m.shape == "pointer":
            return _inner(reached, name, m.spelling, m.spelling.count("*"), None, True)
        return _inner(reached, name, m.spelling, len(m.extents), m.sub, False)
    return None


def _steps(lvalue: c_ast.Node) -> tuple[Optional[c_ast.ID], list[Optional[str]]]:
    """The variable at the root of ``lvalue`` and the steps from it: None for an index (or a
    ``*``), a member's name for a member."""
    steps: list[Optional[str]] = []
    node = lvalue
    while True:
        if isinstance(node, c_ast.ArrayRef):
            steps.append(None)
            node = node.name
        elif isinstance(node, c_ast.UnaryOp) and node.op == "*":
            steps.append(None)
            node = node.expr
        elif isinstance(node, c_ast.StructRef) and isinstance(node.field, c_ast.ID):
            steps.append(node.field.name)
            if node.type == "->":
                steps.append(None)
            node = node.name
        else:
            break
    steps.reverse()
    return (node if isinstance(node, c_ast.ID) else None), steps


def const_because(lvalue: c_ast.Node, type_of: Callable[[str], Optional[CType]]) -> Optional[str]:
    """Why ``lvalue`` is a const object C forbids assigning (the declaration that makes it one),
    or None. ``type_of`` gives a variable's declared type (None where unknown)."""
    root, steps = _steps(lvalue)
    if root is None or not steps:
        return None  # a variable itself: its own const is checked where it is stored
    t = type_of(root.name)
    if t is None:
        return None
    reached: Optional[_Reached] = _root(root.name, t)
    for step in steps:
        assert reached is not None
        if step is None:
            if reached.derefs_left == 0:
                return None
            reached.derefs_left -= 1
        else:
            if reached.derefs_left != 0:
                return None
            reached = _member(reached, step)
            if reached is None:
                return None
    assert reached is not None
    return reached.why if reached.derefs_left == 0 and reached.const else None
