"""An ``axis=`` named by a parameter: the value every call there gives it, as a literal.

NumPy helpers are written to take their axis as a parameter, often with a default
(``def softmax(z, axis=-1): e = np.exp(z - np.max(z, axis=axis, keepdims=True))``), called
``softmax(scores)`` or ``softmax(-beta * d2, axis=1)``. s2sad needs each reduction's axis at
translation time (the result's rank and the adjoint depend on it), so such a parameter is read,
where it names an axis, as the integer literal its calls give it (its default where a call leaves
it out). Where the calls give several values, the helper becomes one instance per value
(``softmax_axism1``, ``softmax_axis1``), each call calling its own. Only where that is certain: a
helper (the function differentiated is called from outside, with any axis), a body that never
assigns the parameter, and a file in which the helper is only ever called by name (not passed as
a value, not by itself), each call giving the parameter an integer literal or leaving it to an
integer literal default. A helper that passes its own axis on (``softmax(z, axis=axis)``) is
settled first, then its callee. Anything else stays as written, and an axis that is not a literal
is refused where it is read. The rewrites happen in the syntax trees, the new nodes placed where
the nodes they replace stood, like the rewrites of ``py_spellings``.
"""

from __future__ import annotations

from collections import ChainMap
from typing import Optional

import libcst as cst

from .py_flow import assigned_names, walk
from .py_module import ModuleInfo
from .py_params import parameters
from .py_spellings import PlacedRewriter

def fix_default_axes(info: ModuleInfo, entry: str, positions) -> dict[cst.CSTNode, object]:
    """Rewrite ``axis=p`` in the helpers of ``info`` whose parameter ``p`` has an integer literal
    value in each call (see the module), an instance per value; the positions of the new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    # A tree rewritten twice (a helper's axis, then a call in it renamed) finds the nodes the first
    # rewrite made among the new positions.
    placed: Placed = (ChainMap(new_positions, positions), new_positions)
    settled: set[str] = set()
    for _ in range(len(info.functions)):  # a helper passing its axis on is settled in a later round
        progress = False
        for name in list(info.functions):
            if name == entry or name in settled or name not in info.functions:
                continue
            fn = info.functions[name]  # as earlier rewrites left it
            plan = _axis_values(info, name, fn)
            if plan is None:
                continue
            settled.add(name)
            progress = True
            groups: dict[tuple[int, ...], list[cst.Call]] = {}
            for call, values in plan.calls:
                groups.setdefault(values, []).append(call)
            if len(groups) <= 1:
                values = next(iter(groups), plan.defaults)
                _rewrite(info, name, fn, dict(zip(plan.params, values)), placed)
                continue
            renamed: dict[cst.Call, str] = {}
            for values, calls in groups.items():
                instance = _instance_name(info, name, values)
                info.functions[instance] = fn  # taken, then rewritten
                _rewrite(info, instance, fn, dict(zip(plan.params, values)), placed)
                if name in info.function_bindings:
                    info.function_bindings[instance] = info.function_bindings[name]
                settled.add(instance)
                renamed.update((c, instance) for c in calls)
            del info.functions[name]
            info.function_bindings.pop(name, None)
            for caller, other in list(info.functions.items()):
                rewriter = _CallRenamer(renamed, *placed)
                out = other.visit(rewriter)
                if rewriter.changed:
                    info.functions[caller] = out  # type: ignore[assignment]
        if not progress:
            break
    return new_positions


# The positions of the nodes (the source's and those earlier rewrites made), and of those this
# pass makes: what each PlacedRewriter of the pass is given.
Placed = tuple[ChainMap, dict]


class _Plan:
    """A helper's axis parameters, their defaults, and the values each call gives them."""

    def __init__(self, params: list[str], defaults: tuple[int, ...]):
        self.params = params
        self.defaults = defaults
        self.calls: list[tuple[cst.Call, tuple[int, ...]]] = []


def _axis_values(info: ModuleInfo, name: str, fn: cst.FunctionDef) -> Optional[_Plan]:
    """The parameters of ``fn`` (called ``name``) that name an axis in its body, never assigned
    there, with an integer literal in every call of the file (or its integer literal default),
    and those values; None where there is none or the calls cannot all be known."""
    params = parameters(fn)
    named = {p.name.value for p in params}
    axes = {n.value.value for n in walk(fn.body) if _names_axis(n, named)}  # type: ignore[attr-defined]
    axes -= set(assigned_names([fn.body]))
    if not axes:
        return None
    ordered = [p for p in params if p.name.value in axes]
    defaults = {p.name.value: _int_literal(p.default) if p.default is not None else None for p in ordered}
    plan = _Plan([p.name.value for p in ordered], tuple(defaults[p.name.value] or 0 for p in ordered))
    positional = [p.name.value for p in fn.params.params]
    for other_name, other in info.functions.items():
        for n in walk(other):
            if isinstance(n, cst.Name) and n.value == name and not _is_callee(other, n):
                return None  # passed as a value (map, a table of functions): its callers are unknown
            if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == name):
                continue
            if other_name == name or any(a.star for a in n.args):
                return None
            given: dict[str, cst.BaseExpression] = {}
            for k, a in enumerate(n.args):
                if a.keyword is not None:
                    given[a.keyword.value] = a.value
                elif k < len(positional):
                    given[positional[k]] = a.value
            values = []
            for p in plan.params:
                value = _int_literal(given[p]) if p in given else defaults[p]
                if value is None:
                    return None  # not a literal (yet: a helper passing its own axis on)
                values.append(value)
            plan.calls.append((n, tuple(values)))
    if not plan.calls and None in defaults.values():
        return None
    return plan


def _rewrite(info: ModuleInfo, name: str, fn: cst.FunctionDef, fixed: dict[str, int], placed: Placed) -> None:
    """``fn``'s axes named by the parameters ``fixed`` as those literals, as the function ``name``."""
    rewriter = _AxisRewriter(fixed, *placed)
    out = fn.visit(rewriter)
    if name != fn.name.value:
        out = rewriter.place(out.with_changes(name=rewriter.place(cst.Name(name), fn.name)), fn)
    info.functions[name] = out  # type: ignore[assignment]


def _instance_name(info: ModuleInfo, name: str, values: tuple[int, ...]) -> str:
    """``softmax_axis1``, ``softmax_axism1``: a free name for the instance given ``values``."""
    out = name + "_axis" + "_".join(f"m{-v}" if v < 0 else str(v) for v in values)
    while out in info.functions or out in info.imports or out in info.constants or out in info.other_globals:
        out += "_"
    return out


class _CallRenamer(PlacedRewriter):
    """Each call of ``renamed`` calls its instance instead."""

    def __init__(self, renamed: dict[cst.Call, str], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.renamed = renamed

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        instance = self.renamed.get(original)
        if instance is None:
            return updated
        self.changed = True
        return updated.with_changes(func=self.place(cst.Name(instance), original.func))


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
    def __init__(self, fixed: dict[str, int], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.fixed = fixed

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        if not _names_axis(original, set(self.fixed)):
            return updated
        value = self.fixed[original.value.value]  # type: ignore[attr-defined]
        literal: cst.BaseExpression = cst.Integer(str(abs(value)))
        if value < 0:
            literal = cst.UnaryOperation(cst.Minus(), literal)
        self.changed = True
        return updated.with_changes(value=self.place(literal, original.value, whole=True))
