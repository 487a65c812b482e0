"""NumPy's in-place calls, read as the assignments they make.

``y.sort()`` sorts ``y`` where it is, and ``np.multiply(x, x, out=y)`` writes its result into
``y``. Each, as a statement of its own, is the assignment ``y[...] = np.sort(y)`` (``y[...] =
np.multiply(x, x)``): the same elements of the same array are written, so another name of ``y``
(a view, a second name) sees the change as it would see NumPy's, and the rest of the front end
reads the assignment as it reads any (the sort's adjoint, the value's, the write into ``y``).

Only a plain name receives (``out=y``; ``y.sort()`` without ``axis``, which sorts a vector, of
an array: a Python list's ``sort()`` stays a method call, refused);
a call whose value is used as well (``z = np.add(a, b, out=y)``) and other receivers stay as
written, refused where they are lowered.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter, np_name
from .py_types import appended_list


def rewrite_inplace_calls(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Rewrite the in-place calls of every function of ``info``; the positions of the new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        rewriter = _InPlace(info, positions, new_positions, _lists(fn))
        out = fn.visit(rewriter)
        if rewriter.changed:
            info.functions[name] = out  # type: ignore[assignment]
    return new_positions


def _lists(fn: cst.CSTNode) -> frozenset[str]:
    """The names a function binds to a Python list (``v = []``, ``[...]``, a comprehension) or
    appends to: their ``sort()`` is a list's, which no NumPy assignment spells."""
    out = set()
    for node in walk(fn):
        if isinstance(node, cst.Assign) and isinstance(node.value, (cst.List, cst.ListComp)):
            out |= {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}
        elif isinstance(node, cst.Call) and (name := appended_list(node)) is not None:
            out.add(name)
    return frozenset(out)


class _InPlace(PlacedRewriter):
    def __init__(self, info: ModuleInfo, positions, new_positions: dict, lists: frozenset[str]):
        super().__init__(positions, new_positions)
        self.info = info
        self.lists = lists

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        call = updated.value
        if not isinstance(call, cst.Call):
            return updated
        found = self._sorted(call) or self._out(call)
        if found is None:
            return updated
        target, value = found
        self.changed = True
        index = cst.SubscriptElement(cst.Index(cst.Ellipsis()))
        assign = cst.Assign([cst.AssignTarget(cst.Subscript(target, [index]))], value)
        return self.place(assign, original, whole=True)  # type: ignore[return-value]

    def _sorted(self, call: cst.Call) -> Optional[tuple[cst.Name, cst.Call]]:
        """``y.sort()`` (``kind=`` kept): ``y`` and ``np.sort(y)``."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "sort" and isinstance(func.value, cst.Name)):
            return None
        if func.value.value in self.info.imports or func.value.value in self.lists \
                or any(a.keyword is None or a.keyword.value != "kind" for a in call.args):
            return None  # (a module's sort, a list's, or an axis)
        return func.value, cst.Call(np_name(self.info, "sort"), [cst.Arg(func.value), *call.args])

    def _out(self, call: cst.Call) -> Optional[tuple[cst.Name, cst.Call]]:
        """``np.f(..., out=y)`` of a NumPy function: ``y`` and the call without ``out``."""
        out = next((a for a in call.args if a.keyword is not None and a.keyword.value == "out"), None)
        canonical = self.info.canonical_name(call.func)
        if out is None or not isinstance(out.value, cst.Name) or not (canonical or "").startswith("numpy."):
            return None
        args = [a for a in call.args if a is not out]
        if args and args[-1].comma is not cst.MaybeSentinel.DEFAULT:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return out.value, call.with_changes(args=args)
