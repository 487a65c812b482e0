"""Arrays a function only reads: what it holds can be copied where Python would share it.

A list keeps the array appended to it, not a copy (``traj.append(state)``): a later write into
``state``'s array changes the list's item too. ``py_lists`` copies the item in, so it takes the
array itself only where no such write can happen: the name is only rebound to new arrays
(``state = rk4_step(...)``), never written through (``state[0] = ...``, ``state += ...``), and no
other name comes to hold its array. ``read_only(info, fn, name)`` says so, conservatively, from the
syntax: every use of ``name`` in the function is an assignment to it, arithmetic or a comparison
of it (``state + dt * k1``, whose result is a new array), an element or part of it read inside
such an expression, an argument of a NumPy or math function, or of a function of the file that
itself only reads that parameter (followed to a depth of ``_DEPTH`` calls), or its items unpacked
into names that are never written through. Anything else (``w = state``, ``f(out=state)``, a
method call, a loop over it) makes it not read-only.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from .py_module import ModuleInfo
from .py_params import parameters

_DEPTH = 4  # helpers followed through helpers; past this, a call is taken to write


def read_only(info: ModuleInfo, fn: cst.FunctionDef, name: str, pure: Callable[[cst.Call], bool],
              depth: int = 0) -> bool:
    """Whether ``fn`` only reads the array ``name`` holds (see the module); ``pure``: a call of a
    library function that has no effect but its value."""
    ok = True

    def visit(node: cst.CSTNode, parent: Optional[cst.CSTNode]) -> None:
        nonlocal ok
        if not ok:
            return
        if isinstance(node, cst.Name) and node.value == name and not _allowed(node, parent, parents):
            ok = False
            return
        for child in node.children:
            parents[id(child)] = node
            visit(child, node)

    parents: dict[int, cst.CSTNode] = {}

    def _allowed(node: cst.CSTNode, parent: Optional[cst.CSTNode], up: dict) -> bool:
        # Reads inside a subscript (x[state[0]]) or a part read (state[1:]) count as their parent.
        while isinstance(parent, (cst.Subscript, cst.SubscriptElement, cst.Index, cst.Slice)) \
                or (isinstance(parent, cst.Attribute) and parent.attr.value in ("shape", "size", "ndim")):
            if isinstance(parent, cst.Subscript) and _is_target(parent, up):
                return False  # state[0] = ...: written through
            node, parent = parent, up.get(id(parent))
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget,
                               cst.BooleanOperation, cst.IfExp)):
            return True
        if isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.Element) and _in_target(parent, up)):
            return True  # rebound (state = ...), or a name it is unpacked into
        if isinstance(parent, cst.AugAssign):
            return parent.target is not node  # state += 1 writes through it; x += state reads it
        if isinstance(parent, cst.Assign) and parent.value is node:
            targets = [t.target for t in parent.targets]  # x, y = state: names never written through
            return all(isinstance(t, cst.Tuple) and all(
                isinstance(e.value, cst.Name) and _never_written(fn, e.value.value) for e in t.elements)
                for t in targets)
        if isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star:
            call = up.get(id(parent))
            if isinstance(call, cst.Call) and call.func is not node:
                return _passed(call, call.args.index(parent))
        if isinstance(parent, cst.Expr) or isinstance(parent, cst.Return):
            return isinstance(parent, cst.Return)  # returned: the caller's concern, as a new binding
        return False

    def _passed(call: cst.Call, k: int) -> bool:
        if pure(call) or (isinstance(call.func, cst.Attribute) and call.func.attr.value == "append"
                          and isinstance(call.func.value, cst.Name)):
            return True  # (appended to a list: copied in, py_lists)
        callee = info.functions.get(call.func.value) if isinstance(call.func, cst.Name) else None
        if callee is None or depth >= _DEPTH:
            return False
        params = [p.name.value for p in parameters(callee)]
        if any(a.star or a.keyword for a in call.args[:k + 1]) or k >= len(params):
            return False
        return read_only(info, callee, params[k], pure, depth + 1)

    visit(fn.body, fn)
    return ok


def _is_target(sub: cst.Subscript, up: dict) -> bool:
    parent = up.get(id(sub))
    return isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.AugAssign) and parent.target is sub)


def _in_target(element: cst.Element, up: dict) -> bool:
    node: Optional[cst.CSTNode] = element
    while isinstance(node, (cst.Element, cst.Tuple, cst.List)):
        node = up.get(id(node))
    return isinstance(node, cst.AssignTarget)


def _never_written(fn: cst.FunctionDef, name: str) -> bool:
    """No ``name[...] = ...`` or ``name += ...`` (nor a part of it) in ``fn``."""
    for n in _walk(fn.body):
        target = n.target if isinstance(n, cst.AugAssign) else None
        targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else []
        for t in ([target] if target is not None else []) + targets:
            base = t
            while isinstance(base, cst.Subscript):
                base = base.value
            if isinstance(base, cst.Name) and base.value == name and (t is not base or isinstance(n, cst.AugAssign)):
                return False
    return True


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
