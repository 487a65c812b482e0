"""A loop over a literal list of values, unrolled before typing: the body once per item.

Small models are written as a loop over their layers spelled out in place (``for W, b in [(W1,
b1), (W2, b2)]: h = np.tanh(W @ h + b)``): the items are arrays of different shapes, which no loop
variable of s2sad's holds. Unrolled, each pass binds the target to its item (``W, b = W1, b1``)
and runs a copy of the body, as Python does. Only where that means the same: a list or tuple of
at most ``MOST_ITEMS`` items, each a name or a constant (or, for a tuple target, a tuple of as
many), none of which the body assigns (Python takes the items before the first pass), and a loop
with no ``else`` and no ``break`` or ``continue`` of its own. So is a loop over a local that names
such a list (``layers = [(W1, b1), (W2, b2)]`` then ``for W, b in layers:``), where the local is
assigned once and only loops read it, each of which unrolls: the assignment goes. Any other such
loop stays as written. The copies of the body stand where the body stands (every node placed where the node
it copies is), so a located error points at the source line once.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import all_names, assigned_names, walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter

MOST_ITEMS = 8  # past this, the loop stays a loop (and its copies would swell the output)


def unroll_literal_loops(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Unroll the loops over literal lists in every function of ``info``; the new nodes' positions."""
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        named = _named_lists(fn)
        if not named and not any(isinstance(n, cst.For) and isinstance(n.iter, (cst.List, cst.Tuple))
                                 for n in walk(fn)):
            continue
        rewriter = _Unroller(positions, new_positions, named)
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


def _named_lists(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Locals that name a literal list only loops run over (``weights = [W1, W2]`` then ``for W in
    weights:``): name -> the literal, each item a name the function never assigns (so the list
    holds what it is read as) or a constant. The assignment goes where the loops are unrolled."""
    assigns: dict[str, list[cst.Assign]] = {}
    for n in walk(fn.body):
        if isinstance(n, cst.Assign):
            for t in n.targets:
                for w in walk(t.target):
                    if isinstance(w, cst.Name):
                        assigns.setdefault(w.value, []).append(n)
    written = set(assigned_names([fn.body])) | {p.name.value for p in fn.params.params}
    found: dict[str, cst.BaseExpression] = {}
    for name, sites in assigns.items():
        st = sites[0]
        if len(sites) != 1 or len(st.targets) != 1 or not isinstance(st.targets[0].target, cst.Name) \
                or not isinstance(st.value, (cst.List, cst.Tuple)):
            continue
        items = [e.value for e in st.value.elements if isinstance(e, cst.Element)]
        flat = [v for item in items for v in (item.elements if isinstance(item, cst.Tuple) else [item])]
        flat = [v.value if isinstance(v, cst.Element) else v for v in flat]
        if len(items) != len(st.value.elements) or not all(_simple(v) for v in flat) or any(
                isinstance(v, cst.Name) and v.value in written - {p.name.value for p in fn.params.params}
                for v in flat):
            continue
        loops = [n for n in walk(fn.body) if isinstance(n, cst.For) and isinstance(n.iter, cst.Name)
                 and n.iter.value == name]
        uses = sum(1 for n in all_names(fn.body) if n.value == name)
        if loops and uses == len(loops) + 1 and _bound_once(fn, name) and all(
                _items(loop.with_changes(iter=st.value)) is not None for loop in loops):
            found[name] = st.value  # (each loop unrolls: the assignment can go)
    return found


def _bound_once(fn: cst.FunctionDef, name: str) -> bool:
    """``name`` is bound by one plain assignment and nothing else (no loop, augmented assignment)."""
    return not any(isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.Del, cst.NamedExpr))
                   and any(isinstance(w, cst.Name) and w.value == name for w in walk(n.target))
                   for n in walk(fn.body) if hasattr(n, "target"))


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
    def __init__(self, positions, new_positions: dict, named: dict[str, cst.BaseExpression]):
        super().__init__(positions, new_positions)
        self.named = named  # weights = [W1, W2]: the lists named loops run over

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):  # type: ignore[override]
        target = original.targets[0].target if len(original.targets) == 1 else None
        if isinstance(target, cst.Name) and target.value in self.named and original.value is self.named[target.value]:
            self.changed = True
            return cst.RemoveFromParent()  # its loops, unrolled, read the items themselves
        return updated

    def _place_like(self, new: cst.CSTNode, old: cst.CSTNode) -> None:
        """Every node of ``new`` (a copy of ``old``) where the node of ``old`` it copies is."""
        for n, o in zip(walk(new), walk(old)):
            self.place(n, o)

    def leave_For(self, original: cst.For, updated: cst.For):  # type: ignore[override]
        if isinstance(updated.iter, cst.Name) and updated.iter.value in self.named:
            updated = updated.with_changes(iter=self.named[updated.iter.value])
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
