"""Unpacking with a starred target that nothing reads, rewritten as the unpacking it leaves.

``first, *_ = x`` keeps the first item and drops the rest; ``a, b, *rest = v`` where no statement
reads ``rest`` keeps two. Written so, before typing, they are what s2sad already lowers::

    first, *_ = x                 ->  first = x[0]
    *_, last = x                  ->  last = x[-1]
    a, *_, c = p, q, r, s         ->  a, c = p, s

Only where that means the same: one starred name, read nowhere in the function; a right side
that is a name, an attribute or a subscript (indexed: Python unpacks it item by item, and for an
array, list or tuple the items are what the indices give), or a tuple or list literal whose
dropped items evaluating cannot change anything (no call of a function of the file, which may
write an array). Where fewer items come than the names kept, Python raises ``ValueError``, the
rewrite ``IndexError``, or, for a literal, s2sad's own located error. A starred name the function
reads (a list of the rest) is left as it is, and refused where it is lowered.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import read_names, walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter, repeatable


def rewrite_starred(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Rewrite the starred unpackings in every function of ``info``; the positions of the new
    nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        if not any(isinstance(n, cst.Assign) and _starred_at(n) is not None for n in walk(fn)):
            continue
        rewriter = _Rewriter(info, read_names(fn), positions, new_positions)
        out = fn.visit(rewriter)
        if rewriter.changed:
            info.functions[name] = out  # type: ignore[assignment]
    return new_positions


def _starred_at(st: cst.Assign) -> Optional[int]:
    """The position of the one starred name among the targets of ``st`` (a tuple or list of names
    and one ``*name``), else None."""
    if len(st.targets) != 1 or not isinstance(st.targets[0].target, (cst.Tuple, cst.List)):
        return None
    elements = st.targets[0].target.elements
    starred = [k for k, e in enumerate(elements) if isinstance(e, cst.StarredElement)]
    if len(starred) != 1 or not isinstance(elements[starred[0]].value, cst.Name):
        return None
    return starred[0]


class _Rewriter(PlacedRewriter):
    def __init__(self, info: ModuleInfo, read: set[str], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.info = info
        self.read = read

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        at = _starred_at(original)
        if at is None:
            return updated
        elements = list(original.targets[0].target.elements)  # type: ignore[attr-defined]
        star = elements[at].value.value  # type: ignore[attr-defined]
        if star in self.read:
            return updated
        before, after = [e.value for e in elements[:at]], [e.value for e in elements[at + 1:]]
        kept = before + after
        if not kept or any(isinstance(t, cst.StarredElement) for t in kept):
            return updated
        values = self._kept_values(original.value, len(before), len(after))
        if values is None:
            return updated
        target: cst.BaseAssignTargetExpression = kept[0] if len(kept) == 1 else cst.Tuple(
            [cst.Element(t) for t in kept], lpar=[], rpar=[])
        value: cst.BaseExpression = values[0] if len(values) == 1 else cst.Tuple(
            [cst.Element(v) for v in values], lpar=[], rpar=[])
        self.changed = True
        return self.place(updated.with_changes(targets=[cst.AssignTarget(target)], value=value),  # type: ignore
                          original, whole=True)

    def _kept_values(self, value: cst.BaseExpression, first: int, last: int) -> Optional[list[cst.BaseExpression]]:
        """The items of ``value`` the names kept take: its first ``first`` and last ``last``."""
        if isinstance(value, (cst.Tuple, cst.List)):
            items = [e.value for e in value.elements]
            if any(isinstance(e, cst.StarredElement) for e in value.elements) or len(items) < first + last:
                return None
            dropped = items[first:len(items) - last]
            if not all(repeatable(self.info, d) for d in dropped):
                return None  # (evaluating a dropped item may change something)
            return items[:first] + items[len(items) - last:]
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)) or not repeatable(self.info, value):
            return None
        indices = [cst.Integer(str(k)) for k in range(first)]
        indices += [cst.UnaryOperation(cst.Minus(), cst.Integer(str(k))) for k in range(last, 0, -1)]
        return [cst.Subscript(value, [cst.SubscriptElement(cst.Index(i))]) for i in indices]
