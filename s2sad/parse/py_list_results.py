"""A helper's list result that every caller makes an array: the helper returns the array.

Simulation helpers collect a trajectory in lists and return them (``return ys, ts``), and their
callers make arrays of them (``ys, ts = simulate(k, y0)``, then ``ys = np.array(ys)``). s2sad's
IR has no list results; but where every caller only reads what such a helper returns in ways an
array is read the same (``np.array(v)``, ``np.asarray(v)`` and any alias, ``len(v)``, ``v[k]``,
``for x in v``), returning ``np.array(v)`` instead computes the same for every caller. So, for a
helper of the file (not the function differentiated, whose caller is outside it) whose every
``return`` gives, at the same places, a list it made (a name assigned list literals or
comprehensions only, or such a list reversed, ``v[::-1]``, as ``py_list_front`` writes it), and
whose every call is the argument of ``np.array``/``np.asarray`` or assigned, whole or unpacked,
to names read only so until they are rebound, each of those results becomes ``np.array(v)``
(``np.array(v)[::-1]``). The file must import NumPy (the alias it uses is the one written).
Anything else leaves the helper as written, where its list result is refused with its location.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import suite_statements, walk
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter


def return_list_arrays(info: ModuleInfo, positions, entry: str) -> dict[cst.CSTNode, object]:
    """Make the helpers of ``info`` return the arrays of their list results where every caller
    reads them as arrays; the positions of the new nodes."""
    numpy = next((alias for alias, canonical in info.imports.items() if canonical == "numpy"), None)
    if numpy is None:
        return {}
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        if name == entry:
            continue
        places = _list_places(fn)
        if not places or not _callers_read_arrays(info, name, places):
            continue
        rewriter = _Rewriter(places, numpy, positions, new_positions)
        info.functions[name] = fn.visit(rewriter)  # type: ignore[assignment]
    return new_positions


def _lists_of(fn: cst.FunctionDef) -> set[str]:
    """The names ``fn`` assigns only list literals and comprehensions."""
    kinds: dict[str, bool] = {}
    for n in walk(fn.body):
        if isinstance(n, cst.Assign):
            for t in n.targets:
                if isinstance(t.target, cst.Name):
                    v = t.target.value
                    kinds[v] = kinds.get(v, True) and isinstance(n.value, (cst.List, cst.ListComp))
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For)) and isinstance(n.target, cst.Name):
            kinds[n.target.value] = False
    return {v for v, only in kinds.items() if only}


def _list_value(e: cst.BaseExpression, lists: set[str]) -> bool:
    """A list of ``lists``, or one reversed (``v[::-1]``)."""
    if isinstance(e, cst.Subscript) and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Slice):
        s = e.slice[0].slice
        reversed_ = s.lower is None and s.upper is None and isinstance(s.step, cst.UnaryOperation) \
            and isinstance(s.step.expression, cst.Integer) and s.step.expression.value == "1"
        return reversed_ and _list_value(e.value, lists) and isinstance(e.value, cst.Name)
    return isinstance(e, cst.Name) and e.value in lists


def _list_places(fn: cst.FunctionDef) -> Optional[frozenset[int]]:
    """The places (-1: the whole result; k: item k of a returned tuple) where every return of
    ``fn`` gives a list it made; None where they are not the same for every return, or none."""
    lists = _lists_of(fn)
    found: Optional[frozenset[int]] = None
    for n in walk(fn.body):
        if not isinstance(n, cst.Return) or n.value is None:
            continue
        if isinstance(n.value, cst.Tuple):
            here = frozenset(k for k, el in enumerate(n.value.elements) if _list_value(el.value, lists))
        else:
            here = frozenset({-1}) if _list_value(n.value, lists) else frozenset()
        if found is not None and here != found:
            return None
        found = here
    return found or None


def _callers_read_arrays(info: ModuleInfo, helper: str, places: frozenset[int]) -> bool:
    """Whether every call of ``helper`` reads its list results only as arrays are read (and there
    is one)."""
    calls = 0
    for fn in info.functions.values():
        parents: dict[cst.CSTNode, cst.CSTNode] = {}
        for parent in walk(fn.body):
            for child in parent.children:
                parents[child] = parent
        for n, parent in parents.items():
            if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == helper):
                continue
            calls += 1
            if places == {-1} and _as_array_arg(n, parent, parents.get(parent), info):
                continue
            if not isinstance(parent, cst.Assign) or len(parent.targets) != 1:
                return False
            target = parent.targets[0].target
            if places == {-1} and isinstance(target, cst.Name):
                names = [target.value]
            elif isinstance(target, cst.Tuple) and -1 not in places and all(
                    isinstance(el.value, cst.Name) for el in target.elements):
                names = [el.value.value for k, el in enumerate(target.elements) if k in places]  # type: ignore
            else:
                return False
            if not all(_read_as_array(fn, parent, v, info) for v in names):
                return False
    return calls > 0


def _as_array_arg(n: cst.CSTNode, parent: cst.CSTNode, grand: Optional[cst.CSTNode], info: ModuleInfo) -> bool:
    """``n`` is the only argument of ``np.array``/``np.asarray``."""
    return isinstance(parent, cst.Arg) and parent.value is n and not parent.star and parent.keyword is None \
        and isinstance(grand, cst.Call) and len(grand.args) == 1 \
        and info.canonical_name(grand.func) in ("numpy.array", "numpy.asarray")


def _read_as_array(fn: cst.FunctionDef, assign: cst.Assign, name: str, info: ModuleInfo) -> bool:
    """Whether ``name``, assigned by ``assign`` (a statement of ``fn``'s body itself), is read only
    as an array is read the same until it is rebound by another statement of the body."""
    stmts = suite_statements(fn.body)
    at = next((k for k, st in enumerate(stmts) if st is assign), None)  # small statements: not nested
    if at is None:
        return False
    for st in stmts[at + 1:]:
        parents: dict[cst.CSTNode, cst.CSTNode] = {}
        for parent in walk(st):
            for child in parent.children:
                parents[child] = parent
        rebinds = isinstance(st, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                     for t in st.targets)
        for n, parent in parents.items():
            if not (isinstance(n, cst.Name) and n.value == name) or isinstance(parent, cst.AssignTarget):
                continue
            grand = parents.get(parent)
            if _as_array_arg(n, parent, grand, info) or (isinstance(parent, cst.For) and parent.iter is n):
                continue
            if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and isinstance(grand.func, cst.Name) \
                    and grand.func.value == "len" and grand.func.value not in info.functions:
                continue
            if isinstance(parent, cst.Subscript) and parent.value is n and len(parent.slice) == 1 \
                    and isinstance(parent.slice[0].slice, cst.Index):
                continue
            return False
        if rebinds:
            return True
    return True


class _Rewriter(PlacedRewriter):
    """Each return's list results, made arrays: ``np.array(v)``, ``np.array(v)[::-1]``."""

    def __init__(self, places: frozenset[int], numpy: str, positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.places = places
        self.numpy = numpy

    def _array(self, e: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(e, cst.Subscript):  # v[::-1]: np.array(v)[::-1]
            return self.place(e.with_changes(value=self._array(e.value)), e)  # type: ignore[return-value]
        made = cst.Call(cst.Attribute(cst.Name(self.numpy), cst.Name("array")), [cst.Arg(e)])
        at = self.new_positions.get(e) or self.positions.get(e)
        if at is not None:
            for n in (made, made.func, made.func.value, made.func.attr, made.args[0]):  # type: ignore[attr-defined]
                self.new_positions[n] = at
        return made

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        value = updated.value
        if value is None:
            return updated
        if self.places == {-1}:
            return updated.with_changes(value=self._array(value))
        assert isinstance(value, cst.Tuple)
        elements = [el.with_changes(value=self._array(el.value)) if k in self.places else el
                    for k, el in enumerate(value.elements)]
        return updated.with_changes(value=self.place(value.with_changes(elements=elements), value))
