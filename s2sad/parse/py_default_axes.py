"""An ``axis=`` named by a parameter that no caller passes: the parameter's default, as a literal.

NumPy helpers are written to take their axis as a parameter with a default, and the calls in the
file leave it out (``def softmax(z, axis=-1): e = np.exp(z - np.max(z, axis=axis, keepdims=True))``
called ``softmax(scores)``). s2sad needs each reduction's axis at translation time (the result's
rank and the adjoint depend on it), so such a parameter is read, where it names an axis, as its
default: the value it has in every call there is. Only where that is certain: a helper (the
function differentiated is called from outside, with any axis), a default that is an integer
literal, a body that never assigns the parameter, and a file in which the helper is only ever
called by name (not passed as a value) and no call gives the parameter, by position or keyword.
Anything else stays as written, and an axis that is not a literal is refused where it is read.
The rewrite happens in the syntax tree of each such function, the new literals placed where the
parameter's name stood, like the rewrites of ``py_spellings``.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import assigned_names, walk
from .py_module import ModuleInfo
from .py_params import parameters
from .py_spellings import PlacedRewriter

def fix_default_axes(info: ModuleInfo, entry: str, positions) -> dict[cst.CSTNode, object]:
    """Rewrite ``axis=p`` in the helpers of ``info`` whose parameter ``p`` keeps its default in
    every call (see the module); the positions of the new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        if name == entry:
            continue
        fixed = _fixed_params(info, name, fn)
        if not fixed:
            continue
        rewriter = _AxisRewriter(fixed, positions, new_positions)
        out = fn.visit(rewriter)
        if rewriter.changed:
            info.functions[name] = out  # type: ignore[assignment]
    return new_positions


def _fixed_params(info: ModuleInfo, name: str, fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """The parameters of ``fn`` (called ``name``) no call in the file gives, with an integer
    literal default and never assigned in its body: name -> the default."""
    params = parameters(fn)
    candidates = {p.name.value: p.default for p in params
                  if p.default is not None and _int_literal(p.default) is not None}
    if not candidates or not any(_names_axis(n, set(candidates)) for n in walk(fn.body)):
        return {}
    for assigned in assigned_names([fn.body]):
        candidates.pop(assigned, None)
    order = [p.name.value for p in fn.params.params]
    for other in info.functions.values():
        for n in walk(other):
            if isinstance(n, cst.Name) and n.value == name and not _is_callee(other, n):
                return {}  # passed as a value (map, a table of functions): its callers are unknown
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == name:
                if any(a.star for a in n.args):
                    return {}
                given = sum(1 for a in n.args if a.keyword is None)
                for k in range(min(given, len(order))):
                    candidates.pop(order[k], None)
                for a in n.args:
                    if a.keyword is not None:
                        candidates.pop(a.keyword.value, None)
    return candidates


def _is_callee(fn: cst.CSTNode, name: cst.Name) -> bool:
    """``name`` is the function a call in ``fn`` calls, or the name of a def."""
    for n in walk(fn):
        if isinstance(n, cst.Call) and n.func is name:
            return True
        if isinstance(n, cst.FunctionDef) and n.name is name:
            return True
    return False


def _names_axis(node: cst.CSTNode, names: set[str]) -> bool:
    return isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "axis" \
        and isinstance(node.value, cst.Name) and node.value.value in names


def _int_literal(node: cst.BaseExpression) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return -int(node.expression.value, 0)
    return None


class _AxisRewriter(PlacedRewriter):
    def __init__(self, fixed: dict[str, cst.BaseExpression], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.fixed = fixed

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        if not _names_axis(original, set(self.fixed)):
            return updated
        literal = self.fixed[original.value.value].deep_clone()  # type: ignore[attr-defined]
        at = self.positions.get(original.value)
        if at is not None:
            for n in walk(literal):
                self.new_positions[n] = at
        self.changed = True
        return updated.with_changes(value=literal)
