"""A loop over a literal list of values, unrolled before typing: the body once per item.

Small models are written as a loop over their layers spelled out in place (``for W, b in [(W1,
b1), (W2, b2)]: h = np.tanh(W @ h + b)``): the items are arrays of different shapes, which no loop
variable of s2sad's holds. Unrolled, each pass binds the target to its item (``W, b = W1, b1``)
and runs a copy of the body, as Python does. Only where that means the same: a list or tuple of
at most ``MOST_ITEMS`` items, each a name or a constant (or, for a tuple target, a tuple of as
many), none of which the body assigns (Python takes the items before the first pass), and a loop
with no ``else`` and no ``break`` or ``continue`` of its own. Any other such loop stays as
written. The copies of the body stand where the body stands (every node placed where the node
it copies is), so a located error points at the source line once.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import assigned_names, walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter

MOST_ITEMS = 8  # past this, the loop stays a loop (and its copies would swell the output)


def unroll_literal_loops(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Unroll the loops over literal lists in every function of ``info``; the new nodes' positions."""
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        if not any(isinstance(n, cst.For) and isinstance(n.iter, (cst.List, cst.Tuple)) for n in walk(fn)):
            continue
        rewriter = _Unroller(positions, new_positions)
        out = fn.visit(rewriter)
        if rewriter.changed:
            info.functions[name] = out  # type: ignore[assignment]
    return new_positions


def _simple(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)) or (
        isinstance(node, cst.UnaryOperation) and isinstance(node.expression, (cst.Integer, cst.Float)))


def _items(loop: cst.For) -> Optional[list[cst.BaseExpression]]:
    """The values the target takes, each as the assignment of a pass binds it; None where the
    loop is no such loop (see the module)."""
    if loop.orelse is not None or loop.asynchronous is not None:
        return None
    elements = loop.iter.elements  # type: ignore[attr-defined]
    if not elements or len(elements) > MOST_ITEMS or any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    values = [e.value for e in elements]
    target = loop.target
    if isinstance(target, cst.Name):
        parts = [[v] for v in values]
    elif isinstance(target, cst.Tuple) and all(isinstance(e.value, cst.Name) for e in target.elements):
        arity = len(target.elements)
        if not all(isinstance(v, cst.Tuple) and len(v.elements) == arity for v in values):
            return None
        parts = [[e.value for e in v.elements] for v in values]  # type: ignore[attr-defined]
    else:
        return None
    written = set(assigned_names([loop.body]))
    if not all(_simple(p) and not (isinstance(p, cst.Name) and p.value in written) for ps in parts for p in ps):
        return None
    if _jumps(loop.body):
        return None
    return values


def _jumps(node: cst.CSTNode) -> bool:
    """A ``break`` or ``continue`` of the loop whose body is ``node`` (not of a loop inside it)."""
    for child in node.children:
        if isinstance(child, (cst.Break, cst.Continue)):
            return True
        if isinstance(child, (cst.For, cst.While)):
            if child.orelse is not None and _jumps(child.orelse):
                return True
            continue
        if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if _jumps(child):
            return True
    return False


class _Unroller(PlacedRewriter):
    def _place_like(self, new: cst.CSTNode, old: cst.CSTNode) -> None:
        """Every node of ``new`` (a copy of ``old``) where the node of ``old`` it copies is."""
        for n, o in zip(walk(new), walk(old)):
            self.place(n, o)

    def leave_For(self, original: cst.For, updated: cst.For):  # type: ignore[override]
        if not isinstance(updated.iter, (cst.List, cst.Tuple)):
            return updated
        values = _items(updated)
        if values is None:
            return updated
        body = updated.body
        stmts = [cst.SimpleStatementLine(list(body.body))] if isinstance(body, cst.SimpleStatementSuite) \
            else list(body.body)  # (for a in [x, y]: s += a)
        statements: list[cst.BaseStatement] = []
        for value in values:
            target = updated.target.deep_clone()
            item = value.deep_clone()
            self._place_like(target, updated.target)
            self._place_like(item, value)
            bind = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], item)])
            self.place(bind.body[0], original)
            statements.append(self.place(bind, original))  # type: ignore[arg-type]
            for st in stmts:
                copy = st.deep_clone()
                self._place_like(copy, st)
                if copy not in self.new_positions:  # (the line a one-line body is made)
                    self.place(copy, original)
                statements.append(copy)
        self.changed = True
        return cst.FlattenSentinel(statements)
