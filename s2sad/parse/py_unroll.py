"""A loop over a literal list of values, unrolled before typing: the body once per item.

Small models are written as a loop over their layers spelled out in place (``for W, b in [(W1,
b1), (W2, b2)]: h = np.tanh(W @ h + b)``): the items are arrays of different shapes, which no loop
variable of s2sad's holds. Unrolled, each pass binds the target to its item (``W, b = W1, b1``)
and runs a copy of the body, as Python does. Only where that means the same: a list or tuple of
at most ``MOST_ITEMS`` items, each a name or a constant (or, for a tuple target, a tuple of as
many), none of which the body assigns (Python takes the items before the first pass), and a loop
with no ``else`` and no ``break`` or ``continue`` of its own. So is a loop over a local that names
such a list (``layers = [(W1, b1), (W2, b2)]`` then ``for W, b in layers:``), where the local is
assigned once and only loops read it, each of which unrolls: the assignment goes. So is a loop
over a range of constant bounds whose counter indexes such a list (``Ws = [W1, W2, W3]`` then
``for i in range(len(Ws)): h = np.tanh(Ws[i] @ h)``): each pass binds the counter to its number
and reads the item it picks. Any other such loop stays as written. The copies of the body stand
where the body stands (every node placed where the node it copies is), so a located error points
at the source line once.
"""

from __future__ import annotations

import itertools
from collections import ChainMap
from typing import Optional

import libcst as cst

from .py_flow import all_names, assigned_names, walk
from .py_module import ModuleInfo
from .py_params import parameters
from .py_spellings import PlacedRewriter, VariableRewriter

MOST_ITEMS = 8  # past this, the loop stays a loop (and its copies would swell the output)


def unroll_literal_loops(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Unroll the loops over literal lists in every function of ``info``; the new nodes' positions."""
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        named, ranges = _named_lists(fn)
        if not named and not any(isinstance(n, cst.For) and literal_of(n.iter, {}) is not None
                                 or _summed_over_literal(n) is not None for n in walk(fn)):
            continue
        rewriter = _Unroller(positions, new_positions, named, ranges)
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
    parts = [_matched(loop.target, v) for v in values]
    if any(p is None for p in parts):
        return None
    written = set(assigned_names([loop.body]))
    if not all(_simple(p) and not (isinstance(p, cst.Name) and p.value in written) for ps in parts for p in ps):
        return None
    if _jumps(loop.body):
        return None
    return values


def _matched(target: cst.BaseExpression, value: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The parts of ``value`` a target binds (``i, (W, b)`` of ``(0, (W1, b1))``: ``0, W1, b1``);
    None where its shape is not the target's."""
    if isinstance(target, cst.Name):
        return [value]
    if not (isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple)
            and len(target.elements) == len(value.elements)):
        return None
    out: list[cst.BaseExpression] = []
    for t, v in zip(target.elements, value.elements):
        more = _matched(t.value, v.value)
        if more is None:
            return None
        out += more
    return out


def _flat_targets(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The names a (nested) tuple target binds, in order."""
    if isinstance(target, cst.Tuple):
        return [n for e in target.elements for n in _flat_targets(e.value)]
    return [target]


def literal_of(iterated: cst.BaseExpression, named: dict[str, cst.BaseExpression]) -> Optional[cst.BaseExpression]:
    """The literal list a loop runs over: ``[W1, W2]`` itself, a local naming one (``named``), and
    ``zip`` and ``enumerate`` of such lists, spelled as the list of the tuples they make
    (``enumerate(zip(weights, biases))``: ``[(0, (W1, b1)), (1, (W2, b2))]``); else None."""
    if isinstance(iterated, (cst.List, cst.Tuple)):
        return iterated
    if isinstance(iterated, cst.Name):
        return named.get(iterated.value)
    if isinstance(iterated, cst.Subscript) and isinstance(iterated.value, cst.Name) \
            and iterated.value.value in named:  # layers[:-1]: the literal's part
        part = _constant_part(iterated, len(named[iterated.value.value].elements))  # type: ignore[attr-defined]
        if part is None or isinstance(part, int):
            return None
        return cst.List([cst.Element(e.value) for e in named[iterated.value.value].elements[part]])  # type: ignore
    if not (isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name)) \
            or any(a.star or a.keyword for a in iterated.args) or not iterated.args:
        return None
    lists = [literal_of(a.value, named) for a in iterated.args]
    if any(x is None for x in lists):
        return None
    items = [[e.value for e in x.elements] for x in lists]  # type: ignore[union-attr]
    if iterated.func.value == "zip" and len({len(i) for i in items}) == 1:
        rows = [cst.Tuple([cst.Element(v) for v in row]) for row in zip(*items)]
    elif iterated.func.value == "enumerate" and len(items) == 1:
        rows = [cst.Tuple([cst.Element(cst.Integer(str(k))), cst.Element(v)]) for k, v in enumerate(items[0])]
    else:
        return None
    return cst.List([cst.Element(r) for r in rows])


def _constant_part(node: cst.Subscript, length: int):
    """The index (an int, in range) or slice of ``name[k]``, ``name[a:b]`` written with integer
    constants (negative ones counted from the end, as Python does); else None."""
    if len(node.slice) != 1:
        return None
    s = node.slice[0].slice
    if isinstance(s, cst.Index):
        k = _integer_value(s.value)
        return None if k is None or not -length <= k < length else k % length
    if not isinstance(s, cst.Slice):
        return None
    bounds = [None if e is None else _integer_value(e) for e in (s.lower, s.upper, s.step)]
    if any(b is None and e is not None for b, e in zip(bounds, (s.lower, s.upper, s.step))) or bounds[2] == 0:
        return None
    return slice(*bounds)


def _unpacks(n: cst.CSTNode, name: str, length: int) -> bool:
    """``a, b = name`` (as many names, or tuples of names, as the list has items)."""
    if not (isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.value, cst.Name)
            and n.value.value == name):
        return False
    target = n.targets[0].target
    return isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == length \
        and not any(isinstance(e, cst.StarredElement) for e in target.elements)


def _indexes(n: cst.CSTNode, name: str, length: int) -> bool:
    """``name[k]`` with ``k`` an integer constant in range."""
    return isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and n.value.value == name \
        and isinstance(_constant_part(n, length), int)


def _named_lists(fn: cst.FunctionDef) -> tuple[dict[str, cst.BaseExpression], dict[cst.For, list[int]]]:
    """Locals that name a literal list only loops run over (``weights = [W1, W2]`` then ``for W in
    weights:``), or that is read at constant indices, by ``len``, unpacked (``W1, W2 = weights``) or
    at the counter of a loop over a constant range: name -> the literal, each item a name the
    function never assigns (so the list holds what it is read as) or a constant. The assignment
    goes where the loops are unrolled (a list no longer read at all, its items passed to a helper
    instead, goes too). And the loops over constant ranges whose counters pick items (``for i in
    range(len(Ws)): ... Ws[i] ...``): loop -> the counter's values, each pass's index in range."""
    candidates = literal_lists(fn)
    lengths = {name: len(lit.elements) for name, lit in candidates.items()}  # type: ignore[attr-defined]
    picks = _counter_indexes(fn.body, lengths, {})
    found: dict[str, cst.BaseExpression] = {}
    ranges: dict[cst.For, list[int]] = {}
    for name, literal in candidates.items():
        # the loops over it (directly, or zipped or enumerated with other such lists), and len(name)
        loops = [n for n in walk(fn.body) if isinstance(n, cst.For) and _range_values(n.iter, lengths) is None
                 and any(isinstance(w, cst.Name) and w.value == name for w in all_names(n.iter))]
        in_loops = sum(1 for loop in loops for w in all_names(loop.iter) if w.value == name)
        length = lengths[name]
        counted = sum(1 for n in walk(fn.body) if _counts(n, name) or _indexes(n, name, length)
                      or _unpacks(n, name, length))
        mine = [(node, counters) for node, counters in picks if node.value.value == name]  # type: ignore[attr-defined]
        uses = sum(1 for n in all_names(fn.body) if n.value == name)
        if uses == in_loops + counted + len(mine) + 1 and _bound_once(fn, name) and all(
                (lit := literal_of(loop.iter, candidates)) is not None
                and _items(loop.with_changes(iter=lit)) is not None for loop in loops) and all(
                _picks_in_range(node, counters, lengths) for node, counters in mine):
            found[name] = literal  # (each loop unrolls: the assignment can go)
            if _may_hold_arrays(fn, literal):  # (numbers: a list s2sad holds, the loop stays one)
                ranges.update({loop: values for _, counters in mine for values, loop in counters.values()})
            elif mine:
                del found[name]
    return found, ranges


def _may_hold_arrays(fn: cst.FunctionDef, literal: cst.BaseExpression) -> bool:
    """Some item of ``literal`` is a name not annotated as a number: it may be an array, of a shape
    of its own (``[W1, W2, W3]``), which no list of s2sad's holds."""
    numbers = {p.name.value for p in parameters(fn) if p.annotation is not None and isinstance(
        p.annotation.annotation, cst.Name) and p.annotation.annotation.value in ("float", "int")}
    items = [v.value if isinstance(v, cst.Element) else v for e in literal.elements  # type: ignore[attr-defined]
             for v in (e.value.elements if isinstance(e.value, cst.Tuple) else [e.value])]
    return any(isinstance(v, cst.Name) and v.value not in numbers for v in items)


def _range_values(iterated: cst.BaseExpression, lengths: dict[str, int]) -> Optional[list[int]]:
    """The numbers of ``range(...)`` written with integer constants and ``len`` of named lists (at
    most ``MOST_ITEMS``); else None."""
    if not (isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value == "range"
            and 1 <= len(iterated.args) <= 3 and not any(a.star or a.keyword for a in iterated.args)):
        return None
    bounds = [_integer_value(a.value, lengths=lengths) for a in iterated.args]
    if any(b is None for b in bounds) or (len(bounds) == 3 and bounds[2] == 0):
        return None
    values = list(range(*bounds))  # type: ignore[arg-type]
    return values if len(values) <= MOST_ITEMS else None


def _counter_indexes(node: cst.CSTNode, lengths: dict[str, int], counters: dict
                     ) -> list[tuple[cst.Subscript, dict[str, tuple[list[int], cst.For]]]]:
    """Each ``name[e]`` of a named list whose index is arithmetic of the counters of loops around
    it over constant ranges (loops with no ``else``, jump or assignment of their counter), with the
    counters it reads: counter -> (its values, its loop)."""
    out = []
    for child in node.children:
        if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(child, cst.For) and isinstance(child.target, cst.Name) and child.orelse is None \
                and (values := _range_values(child.iter, lengths)) is not None and not _jumps(child.body) \
                and child.target.value not in assigned_names([child.body]):
            out += _counter_indexes(child.body, lengths, {**counters, child.target.value: (values, child)})
            continue
        if isinstance(child, cst.Subscript) and isinstance(child.value, cst.Name) and child.value.value in lengths \
                and len(child.slice) == 1 and isinstance(child.slice[0].slice, cst.Index):
            read = {w.value for w in all_names(child.slice[0].slice.value)}
            if read and read <= set(counters):
                out.append((child, {c: counters[c] for c in read}))
        out += _counter_indexes(child, lengths, counters)
    return out


def _picks_in_range(node: cst.Subscript, counters: dict, lengths: dict[str, int]) -> bool:
    """Every number the index of ``node`` takes, over its counters' values, picks an item."""
    index = node.slice[0].slice.value  # type: ignore[attr-defined]
    length = lengths[node.value.value]  # type: ignore[attr-defined]
    names = list(counters)
    for values in itertools.product(*(counters[c][0] for c in names)):
        k = _integer_value(index, dict(zip(names, values)), lengths)
        if k is None or not -length <= k < length:
            return False
    return True


def literal_lists(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Locals assigned once a literal list whose items are names the function never assigns (its
    parameters included) or constants, or tuples of such: name -> the literal."""
    assigns: dict[str, list[cst.Assign]] = {}
    for n in walk(fn.body):
        if isinstance(n, cst.Assign):
            for t in n.targets:
                for w in walk(t.target):
                    if isinstance(w, cst.Name):
                        assigns.setdefault(w.value, []).append(n)
    # (a parameter the body rebinds is no such name either: W1 = W1 * 2.0 after the list is made
    # leaves the list the array passed, where the item read as W1 would be the new one)
    written = set(assigned_names([fn.body]))
    candidates: dict[str, cst.BaseExpression] = {}
    for name, sites in assigns.items():
        st = sites[0]
        if len(sites) != 1 or len(st.targets) != 1 or not isinstance(st.targets[0].target, cst.Name) \
                or not isinstance(st.value, (cst.List, cst.Tuple)):
            continue
        items = [e.value for e in st.value.elements if isinstance(e, cst.Element)]
        flat = [v for item in items for v in (item.elements if isinstance(item, cst.Tuple) else [item])]
        flat = [v.value if isinstance(v, cst.Element) else v for v in flat]
        if len(items) != len(st.value.elements) or not all(_simple(v) for v in flat) or any(
                isinstance(v, cst.Name) and v.value in written for v in flat):
            continue
        candidates[name] = st.value
    return candidates


def _counts(n: cst.CSTNode, name: str) -> bool:
    """``len(name)``."""
    return isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "len" \
        and len(n.args) == 1 and isinstance(n.args[0].value, cst.Name) and n.args[0].value.value == name


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
    def __init__(self, positions, new_positions: dict, named: dict[str, cst.BaseExpression],
                 ranges: dict[cst.For, list[int]]):
        super().__init__(positions, new_positions)
        self.named = named  # weights = [W1, W2]: the lists named loops run over
        self.ranges = ranges  # for i in range(len(weights)): ... weights[i]: the numbers i takes

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):  # type: ignore[override]
        target = original.targets[0].target if len(original.targets) == 1 else None
        if isinstance(target, cst.Name) and target.value in self.named and original.value is self.named[target.value]:
            self.changed = True
            return cst.RemoveFromParent()  # its loops, unrolled, read the items themselves
        for name, lit in self.named.items():  # W1, W2 = weights: W1, W2 = the items
            if _unpacks(original, name, len(lit.elements)):  # type: ignore[attr-defined]
                items = cst.Tuple([cst.Element(e.value.deep_clone()) for e in lit.elements],  # type: ignore
                                  lpar=[], rpar=[])
                self._place_like(items, lit)
                self.place(items, original.value)
                self.changed = True
                return updated.with_changes(value=items)
        return updated

    def _place_like(self, new: cst.CSTNode, old: cst.CSTNode) -> None:
        """Every node of ``new`` (a copy of ``old``) where the node of ``old`` it copies is."""
        for n, o in zip(walk(new), walk(old)):
            self.place(n, o)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``len(weights)`` of a named list: its length; ``sum(np.sum(W ** 2) for W in (W1, W2))``:
        the sum of the terms, one per item (``np.sum(W1 ** 2) + np.sum(W2 ** 2)``), as the loop is
        unrolled (items of different shapes: no list of s2sad's holds them)."""
        for name, lit in self.named.items():
            if _counts(original, name):
                self.changed = True
                return self.place(cst.Integer(str(len(lit.elements))), original)  # type: ignore[attr-defined]
        summed = _summed_over_literal(updated, self.named)
        if summed is None:
            return updated
        comp, values = summed
        terms = []
        for value in values:
            bound = {t.value: part for t, part in zip(_flat_targets(comp.for_in.target), _matched(
                comp.for_in.target, value) or []) if isinstance(t, cst.Name)}
            term = comp.elt.deep_clone().visit(_Substitution(bound, self.positions, self.new_positions))
            terms.append(term.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        total = terms[0]
        for term in terms[1:]:
            total = cst.BinaryOperation(total, cst.Add(), term)
        total = total.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self.place(total, original, whole=True)
        self.changed = True
        return total


    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        """``layers[-1]`` of a named list: that item, as the list spells it."""
        for name, lit in self.named.items():
            if _indexes(updated, name, len(lit.elements)):  # type: ignore[attr-defined]
                item = lit.elements[_constant_part(updated, len(lit.elements))].value  # type: ignore
                copy = item.deep_clone()
                for n in walk(copy):
                    self.place(n, original)
                self.changed = True
                return copy
        return updated

    def leave_For(self, original: cst.For, updated: cst.For):  # type: ignore[override]
        lit = literal_of(updated.iter, self.named)
        if lit is None and original in self.ranges:  # its counter picks items: a pass per number
            lit = cst.List([cst.Element(_integer_node(k)) for k in self.ranges[original]])
        if lit is None:
            return updated
        for n in walk(lit):  # the tuples zip and enumerate make stand where the loop's iterable does
            if n not in self.new_positions and self.positions.get(n) is None:
                self.place(n, original.iter)
        updated = updated.with_changes(iter=lit)
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
            if isinstance(target, cst.Tuple):  # i, (W, b) = 0, (W1, b1): i, W, b = 0, W1, b1
                target = self.place(cst.Tuple([cst.Element(n) for n in _flat_targets(target)]), updated.target)
                item = self.place(cst.Tuple([cst.Element(v) for v in _matched(updated.target, item) or []]), value)
            bind = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], item)])
            self.place(bind.body[0], original)
            statements.append(self.place(bind, original))  # type: ignore[arg-type]
            written = set(assigned_names(stmts))
            counts = {t.value: v for t, v in zip(_flat_targets(updated.target), _matched(updated.target, value) or [])
                      if isinstance(t, cst.Name) and isinstance(v, cst.Integer) and t.value not in written}
            for st in stmts:
                copy = st.deep_clone()
                self._place_like(copy, st)
                if copy not in self.new_positions:  # (the line a one-line body is made)
                    self.place(copy, original)
                if counts:  # enumerate's index: a number in this pass, the ifs it decides decided,
                    # the items it picks read (weights[i])
                    folded = copy.visit(_Substitution(counts, ChainMap(self.new_positions, self.positions),
                                                       self.new_positions))
                    if self.named:
                        folded = folded.visit(_ItemReader(self.named, ChainMap(self.new_positions, self.positions),
                                                          self.new_positions))
                    statements += decided_statements([folded])  # type: ignore[list-item]
                    continue
                statements.append(copy)
        self.changed = True
        return cst.FlattenSentinel(statements)


def _summed_over_literal(node: cst.CSTNode, named: Optional[dict] = None
                         ) -> Optional[tuple[cst.BaseComp, list[cst.BaseExpression]]]:
    """``sum(e for v in [a, b])`` (or of a list comprehension) over a literal list whose items a
    loop would unroll (``_items``): the comprehension and the items; else None."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "sum"
            and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star
            and isinstance(node.args[0].value, (cst.GeneratorExp, cst.ListComp))):
        return None
    comp = node.args[0].value
    f = comp.for_in
    if f.ifs or f.inner_for_in is not None or f.asynchronous is not None:
        return None
    lit = literal_of(f.iter, named or {})
    if lit is None:
        return None
    values = _items(cst.For(target=f.target, iter=lit, body=cst.IndentedBlock([])))
    return (comp, values) if values is not None else None


class _Substitution(VariableRewriter):
    """Each name of ``bound`` replaced by the value it is bound to: an item of a sum over a literal
    list; in one pass's copy of an unrolled body, the loop's integer (``i`` of ``enumerate``) as
    the number it is, so that an ``if`` whose test is then arithmetic and comparisons of numbers
    is decided (``if i < len(weights) - 1: h = relu(h)`` runs in every pass but the last): each
    pass is straight-line code, as Python runs it."""

    def __init__(self, bound: dict[str, cst.BaseExpression], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.bound = bound

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if original.value not in self.bound:
            return updated
        return self.place(self.bound[original.value].deep_clone(), original)  # type: ignore[return-value]

class _ItemReader(PlacedRewriter):
    """``weights[0 + 1]`` of a named list, once a pass's counter is its number: the item."""

    def __init__(self, named: dict[str, cst.BaseExpression], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.named = named

    leave_Subscript = _Unroller.leave_Subscript


def _integer_node(k: int) -> cst.BaseExpression:
    return cst.Integer(str(k)) if k >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-k)))


def decided_statements(stmts: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """``stmts`` with each ``if`` (``elif`` chain) whose test is decided replaced by the branch it
    takes (nothing where none is)."""
    out: list[cst.BaseStatement] = []
    for st in stmts:
        while isinstance(st, cst.If) and (decided := _decide(st.test)) is not None:
            if decided:
                out += decided_statements(_suite_lines(st.body))
                st = None  # type: ignore[assignment]
            elif isinstance(st.orelse, cst.If):
                st = st.orelse
            else:
                if isinstance(st.orelse, cst.Else):
                    out += decided_statements(_suite_lines(st.orelse.body))
                st = None  # type: ignore[assignment]
        if st is not None:
            out.append(st)
    return out


def _suite_lines(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """A branch's statements, a one-line branch's (``if c: a = 1``) as a line of its own."""
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(list(suite.body))]
    return list(suite.body)  # type: ignore[arg-type]


def _decide(test: cst.BaseExpression) -> Optional[bool]:
    """The truth of ``True``, ``False`` and of a test of integer literals, arithmetic and
    comparisons; None for anything else."""
    if isinstance(test, cst.Name) and test.value in ("True", "False"):
        return test.value == "True"
    value = _integer_value(test)
    return None if value is None else bool(value)


def _integer_value(e: cst.BaseExpression, env: Optional[dict[str, int]] = None,
                   lengths: Optional[dict[str, int]] = None) -> Optional[int]:
    """The integer ``e`` is, its names those of ``env`` and ``len`` of a list of ``lengths``
    items; None where it is no such integer."""
    if isinstance(e, cst.Integer):
        return int(e.evaluated_value)
    if isinstance(e, cst.Name) and env and e.value in env:
        return env[e.value]
    counted = next((n for name, n in (lengths or {}).items() if _counts(e, name)), None)
    if counted is not None:  # len(weights)
        return counted
    if isinstance(e, cst.UnaryOperation):
        v = _integer_value(e.expression, env, lengths)
        if v is None:
            return None
        return -v if isinstance(e.operator, cst.Minus) else (int(not v) if isinstance(e.operator, cst.Not) else None)
    if isinstance(e, cst.BinaryOperation):
        a, b = _integer_value(e.left, env, lengths), _integer_value(e.right, env, lengths)
        if a is None or b is None:
            return None
        ops = {cst.Add: lambda: a + b, cst.Subtract: lambda: a - b, cst.Multiply: lambda: a * b,
               cst.FloorDivide: lambda: a // b if b else None, cst.Modulo: lambda: a % b if b else None}
        f = ops.get(type(e.operator))
        return f() if f is not None else None
    if isinstance(e, cst.Comparison) and len(e.comparisons) == 1:
        a, b = _integer_value(e.left, env, lengths), _integer_value(e.comparisons[0].comparator, env, lengths)
        if a is None or b is None:
            return None
        cmp = {cst.LessThan: a < b, cst.LessThanEqual: a <= b, cst.GreaterThan: a > b,
               cst.GreaterThanEqual: a >= b, cst.Equal: a == b, cst.NotEqual: a != b}
        found = cmp.get(type(e.comparisons[0].operator))
        return None if found is None else int(found)
    return None
