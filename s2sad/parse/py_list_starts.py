"""A list started with items and grown by appends: started empty, the items appended first.

A trajectory starts with the initial state (``traj = [np.array(x0)]``, then ``traj.append(...)``
in the loop). ``v = [a, b]`` makes the list that ``v = []; v.append(a); v.append(b)`` makes, each
item the same object, so where a function's list is created so once, by a statement of its own
(its items not reading the list's name), and grows by ``v.append(...)``, it is rewritten that way;
the rest of the list's life is ``py_lists``'s, as for a list started empty (it takes items that
are copies, ``np.array(x0)``, and asks for one where an array is appended itself). Another
assignment of the name, ``traj = np.array(traj)``, is ``py_rebound_lists``'. The new statements
stand where the assignment stood.
"""

from __future__ import annotations

import libcst as cst

from .py_flow import walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter
from .py_types import appended_list


def start_lists_empty(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Rewrite the lists started with names and grown by appends in every function of ``info``;
    the positions of the new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        nodes = list(walk(fn))
        appended = {a for n in nodes if isinstance(n, cst.Call) and (a := appended_list(n)) is not None}
        if not appended:
            continue
        # made by one list display (a later traj = np.array(traj) is py_rebound_lists')
        once = {t for t in appended if sum(1 for n in nodes if isinstance(n, cst.Assign) and _assigns(n, t)
                                           and isinstance(n.value, cst.List)) == 1
                and not any(isinstance(n, cst.AugAssign) and _assigns(n, t) for n in nodes)}
        if not once:
            continue
        rewriter = _Starter(once, positions, new_positions)
        out = fn.visit(rewriter)
        if rewriter.changed:
            info.functions[name] = out  # type: ignore[assignment]
    return new_positions


def _assigns(n: cst.CSTNode, name: str) -> bool:
    targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]  # type: ignore[attr-defined]
    return any(isinstance(w, cst.Name) and w.value == name for t in targets for w in walk(t))


class _Starter(PlacedRewriter):
    def __init__(self, lists: set[str], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.lists = lists

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if len(updated.body) != 1 or not isinstance(updated.body[0], cst.Assign):
            return updated
        st = updated.body[0]
        target = st.targets[0].target if len(st.targets) == 1 else None
        value = st.value
        if not (isinstance(target, cst.Name) and target.value in self.lists and isinstance(value, cst.List)
                and value.elements and all(isinstance(e, cst.Element) and not any(
                    isinstance(w, cst.Name) and w.value == target.value for w in walk(e.value))
                    for e in value.elements)):
            return updated
        lines = [updated.with_changes(body=[st.with_changes(value=cst.List([]))])]
        for e in value.elements:
            call = cst.Call(cst.Attribute(cst.Name(target.value), cst.Name("append")), [cst.Arg(e.value)])
            lines.append(cst.SimpleStatementLine([cst.Expr(call)]))
        for line in lines:
            self.place(line, original, whole=True)
        self.changed = True
        return cst.FlattenSentinel(lines)
