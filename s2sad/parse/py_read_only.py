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

from .py_flow import every_node
from .py_module import ModuleInfo
from .py_params import parameters
from .py_types import appended_list

_DEPTH = 4  # helpers followed through helpers; past this, a call is taken to write


def read_only(info: ModuleInfo, fn: cst.FunctionDef, name: str, pure: Callable[[cst.Call], bool],
              depth: int = 0) -> bool:
    """Whether ``fn`` only reads the array ``name`` holds (see the module); ``pure``: a call of a
    library function that has no effect but its value."""
    up = _parents(fn.body)
    return all(_read_here(n, up, info, fn, pure, depth) for n in every_node(fn.body)
               if isinstance(n, cst.Name) and n.value == name)


def _read_here(node: cst.CSTNode, up: dict, info: ModuleInfo, fn: cst.FunctionDef,
               pure: Callable[[cst.Call], bool], depth: int) -> bool:
    """This use of the array's name (``node``) reads it, or rebinds the name."""
    parent = up.get(id(node))
    # Reads inside a subscript (x[state[0]]) or a part read (state[1:]) count as their parent.
    while isinstance(parent, (cst.Subscript, cst.SubscriptElement, cst.Index, cst.Slice)) \
            or (isinstance(parent, cst.Attribute) and parent.attr.value in ("shape", "size", "ndim")):
        if isinstance(parent, cst.Subscript) and _is_target(parent, up):
            return False  # state[0] = ...: written through
        node, parent = parent, up.get(id(parent))
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget,
                           cst.BooleanOperation, cst.IfExp, cst.Return)):
        return True  # a new array computed from it; returned: a new binding of the caller's
    if isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.Element) and _in_target(parent, up)):
        return True  # rebound (state = ...), or a name it is unpacked into
    if isinstance(parent, cst.AugAssign):
        return parent.target is not node  # state += 1 writes through it; x += state reads it
    if isinstance(parent, cst.Assign) and parent.value is node:
        targets = [t.target for t in parent.targets]  # x, y = state: names never written through
        return all(isinstance(t, cst.Tuple) and all(
            isinstance(e.value, cst.Name) and _never_written(fn, e.value.value) for e in t.elements)
            for t in targets)
    call = up.get(id(parent))
    if isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star \
            and isinstance(call, cst.Call) and call.func is not node:
        if pure(call) or appended_list(call) is not None:
            return True  # (appended to a list: copied in, py_lists)
        callee = info.functions.get(call.func.value) if isinstance(call.func, cst.Name) else None
        k = call.args.index(parent)
        params = [p.name.value for p in parameters(callee)] if callee is not None else []
        return depth < _DEPTH and k < len(params) and not any(a.star or a.keyword for a in call.args[:k]) \
            and read_only(info, callee, params[k], pure, depth + 1)  # type: ignore[arg-type]
    return False


def _parents(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    """Each node under ``root`` (by ``id``) to its parent."""
    return {id(child): n for n in every_node(root) for child in n.children}


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
    for n in every_node(fn.body):
        target = n.target if isinstance(n, cst.AugAssign) else None
        targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else []
        for t in ([target] if target is not None else []) + targets:
            base = t
            while isinstance(base, cst.Subscript):
                base = base.value
            if isinstance(base, cst.Name) and base.value == name and (t is not base or isinstance(n, cst.AugAssign)):
                return False
    return True
