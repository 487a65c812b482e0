"""A list built at its front (``v.insert(0, x)``): the list built by appends, read reversed.

Code that walks a sequence backwards collects its results at the front of a list (discounted
returns: ``for r in reversed(rewards): G = r + gamma * G; returns.insert(0, G)``). The list it
builds is the one ``returns.append(G)`` would build, in reverse order. So, where a list of a
function is created empty (``v = []``), grows only by ``v.insert(0, x)`` and is otherwise only read
in ways that have a reversed spelling, the inserts become appends (which ``py_lists`` lowers) and
each read reads the reversed list:

* ``v[k]`` is ``v[-1 - k]`` (for a negative ``k`` too: Python counts it from the end);
* ``for x in v`` is ``for x in reversed(v)``, and ``reversed(v)`` is ``v``;
* ``np.array(v)``/``np.asarray(v)`` (any alias) is ``np.array(v)[::-1]``;
* ``return v`` is ``return v[::-1]`` (a helper's list result: ``py_list_results``);
* ``len(v)``, ``sum(v)``, ``max(v)``, ``min(v)`` read it whole, in any order (``sum`` adds in the
  other order: the same number up to rounding).

Any other use of such a list (an append too, or an insert elsewhere than at 0) leaves it as
written, where the insert is refused with its location.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import target_names, walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter

_WHOLE_READS = ("len", "sum", "max", "min")


def build_lists_at_the_back(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Rewrite the lists built at their front in every function of ``info``; the positions of the
    new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        if not any(_is_front_insert(n, None) for n in walk(fn)):
            continue
        lists = [v for v in _created_empty(fn) if _only_front_built(fn, v, info)]
        if not lists:
            continue
        rewriter = _Rewriter(set(lists), info, positions, new_positions)
        info.functions[name] = fn.visit(rewriter)  # type: ignore[assignment]
    return new_positions


def _created_empty(fn: cst.FunctionDef) -> list[str]:
    """The names ``fn`` assigns ``[]``, and nothing else."""
    assigned: dict[str, bool] = {}
    for n in walk(fn.body):
        if isinstance(n, cst.Assign):
            empty = isinstance(n.value, cst.List) and not n.value.elements
            for t in n.targets:
                for v in target_names(t.target):
                    assigned[v] = assigned.get(v, True) and empty and isinstance(t.target, cst.Name)
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For)):
            for v in target_names(n.target):
                assigned[v] = False
    return [v for v, empty in assigned.items() if empty]


def _is_front_insert(n: cst.CSTNode, name: Optional[str]) -> bool:
    """``name.insert(0, x)`` (any name where ``name`` is None)."""
    return isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "insert" \
        and isinstance(n.func.value, cst.Name) and (name is None or n.func.value.value == name) \
        and len(n.args) == 2 and isinstance(n.args[0].value, cst.Integer) and n.args[0].value.value == "0" \
        and not any(a.star or a.keyword for a in n.args)


def _only_front_built(fn: cst.FunctionDef, name: str, info: ModuleInfo) -> bool:
    """Whether every use of ``name`` in ``fn`` is its creation, a front insert or a read with a
    reversed spelling (see the module), and there is at least one insert."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    inserts = 0
    for parent in walk(fn.body):
        for child in parent.children:
            parents[child] = parent
    for n, parent in parents.items():
        if not (isinstance(n, cst.Name) and n.value == name):
            continue
        grand = parents.get(parent)
        if isinstance(parent, cst.AssignTarget):
            continue
        if isinstance(parent, cst.Attribute) and parent.value is n and isinstance(grand, cst.Call) \
                and _is_front_insert(grand, name):
            inserts += 1
            continue
        if isinstance(parent, cst.Subscript) and parent.value is n and _one_index(parent) is not None:
            continue
        if isinstance(parent, cst.For) and parent.iter is n:
            continue
        if isinstance(parent, cst.Return) and parent.value is n:
            continue
        if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and len(grand.args) == 1 and not parent.star \
                and parent.keyword is None and _read_whole(grand, info):
            continue
        return False
    return inserts > 0


def _one_index(sub: cst.Subscript) -> Optional[cst.BaseExpression]:
    if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index) \
            and not isinstance(sub.slice[0].slice.value, cst.Tuple):
        return sub.slice[0].slice.value
    return None


def _read_whole(call: cst.Call, info: ModuleInfo) -> bool:
    """``np.array(v)``, ``np.asarray(v)``, ``reversed(v)``, or a read of it whole (``len(v)``)."""
    if isinstance(call.func, cst.Name) and call.func.value in (*_WHOLE_READS, "reversed") \
            and call.func.value not in info.functions:
        return True
    return info.canonical_name(call.func) in ("numpy.array", "numpy.asarray")


class _Rewriter(PlacedRewriter):
    def __init__(self, lists: set[str], info: ModuleInfo, positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.lists = lists
        self.info = info

    def _ours(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Name) and node.value in self.lists

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if _is_front_insert(original, None) and self._ours(original.func.value):  # type: ignore[attr-defined]
            func = self.place(updated.func.with_changes(attr=cst.Name("append")), original.func)  # type: ignore
            return updated.with_changes(func=func, args=[updated.args[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
        if len(original.args) == 1 and self._ours(original.args[0].value):
            if isinstance(original.func, cst.Name) and original.func.value == "reversed":
                return self.place(updated.args[0].value, original)  # type: ignore[return-value]
            if self.info.canonical_name(original.func) in ("numpy.array", "numpy.asarray"):
                return self.place(_reversed(updated), original, whole=True)  # type: ignore[return-value]
        return updated

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        index = _one_index(original)
        if not self._ours(original.value) or index is None:
            return updated
        new = updated.slice[0].slice.value  # type: ignore[attr-defined]
        flipped = cst.BinaryOperation(cst.UnaryOperation(cst.Minus(), cst.Integer("1")), cst.Subtract(),
                                      new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
                                      if isinstance(new, cst.BinaryOperation) else new)
        self.place(flipped, original, whole=True)
        element = updated.slice[0].with_changes(slice=cst.Index(flipped))
        return updated.with_changes(slice=[element])

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For:
        if not self._ours(original.iter):
            return updated
        made = cst.Call(cst.Name("reversed"), [cst.Arg(updated.iter)])
        return updated.with_changes(iter=self.place(made, original.iter, whole=True))

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        if original.value is None or not self._ours(original.value):
            return updated
        return updated.with_changes(value=self.place(_reversed(updated.value), original.value, whole=True))


def _reversed(value: cst.BaseExpression) -> cst.Subscript:
    """``value[::-1]``."""
    step = cst.Slice(lower=None, upper=None, step=cst.UnaryOperation(cst.Minus(), cst.Integer("1")))
    return cst.Subscript(value, [cst.SubscriptElement(step)])
