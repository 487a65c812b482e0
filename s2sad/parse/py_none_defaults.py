"""Parameters that default to ``None``: decided by each call of a helper, filled where the
function differentiated starts.

NumPy code takes optional arrays as ``None`` defaults, and tests them: ``def loss(x, y, w=None):
if w is None: w = np.ones(x.shape[0])``, or ``def dense(x, W, b=None): ... if b is not None: h = h +
b``. s2sad has no ``None`` value, so each such parameter is settled before typing:

* in a helper, each call of the file either gives the parameter or leaves it ``None`` (omitted, or
  ``None`` written). The helper becomes one instance per choice its calls make (``dense``, and
  ``dense_no_b`` for the calls without ``b``), in which every test ``p is None`` / ``p is not
  None`` is decided and a decided ``if`` (or conditional expression) is the branch Python takes.
  An instance where ``p`` is ``None`` takes no such parameter: its body assigns ``p`` by a first
  statement that mentions it (the fill ``p = np.ones(n)``), or passes ``None`` on where it reads
  it (to a helper of its own, settled in turn). Only where that is certain: a helper called by
  name only, never by itself, with no ``*args``; anything else stays as written, and the test is
  refused where it is read;
* the function differentiated is called from outside, either way: a first statement that
  mentions ``p`` and fills it, ``if p is None: p = E`` (or ``p = E if p is None else p``), where
  ``E`` reads only parameters, numbers, NumPy and ``math``, goes from the body into
  ``ModuleInfo.entry_none_fills``. The gradient keeps ``p=None`` and starts with the same fill
  (``emit_py``); its body, as the function's, sees the array ``E`` or the caller's.

The rewrites happen in the syntax trees, the new nodes placed where the nodes they replace
stood, like those of ``py_default_axes``.
"""

from __future__ import annotations

from collections import ChainMap
from typing import Optional

import libcst as cst

from .py_default_axes import Placed, _is_callee
from .py_flow import all_names, assigned_names, fresh_name, read_names, walk
from .py_module import ModuleInfo
from .py_params import bind_arguments, parameters
from .py_spellings import PlacedRewriter, VariableRewriter
from .py_unroll import decided_statements

# Builtins a fill may call (``np.full(len(x), 1.0 / len(x))``), besides NumPy and math.
_FILL_BUILTINS = frozenset({"len", "float", "int", "min", "max", "abs", "None", "True", "False"})


def fill_none_defaults(info: ModuleInfo, positions, entry: str) -> dict[cst.CSTNode, object]:
    """Settle the ``None`` defaults of ``info``'s functions (see the module); the positions of
    the nodes made."""
    new_positions: dict[cst.CSTNode, object] = {}
    placed: Placed = (ChainMap(new_positions, positions), new_positions)
    if entry in info.functions:
        _fill_entry(info, entry, placed)
    settled = {entry}  # (its calls come from outside)
    for _ in range(len(info.functions)):  # a helper passing None on is settled in a later round
        progress = False
        for name in list(info.functions):
            if name in settled or name not in info.functions or _unsettled_caller(info, name, settled):
                continue
            choices = _none_choices(info, name)
            if choices is None:
                continue
            instances = {}
            for none in dict.fromkeys(choices.values()):
                instance = _instance(info.functions[name], none, placed)
                if instance is None:
                    break
                instances[none] = instance
            else:
                settled.update(_install(info, name, choices, instances, placed))
                progress = True
        if not progress:
            break
    return new_positions


def _unsettled_caller(info: ModuleInfo, name: str, settled: set[str]) -> Optional[str]:
    """A helper that calls ``name`` and has ``None`` parameters still to settle: it may pass
    ``None`` on, which its own instances would show."""
    for caller, fn in info.functions.items():
        if caller != name and caller not in settled and _none_params(fn) and any(
                isinstance(n, cst.Name) and n.value == name for n in walk(fn.body)):
            return caller
    return None


def _none_params(fn: cst.FunctionDef) -> list[str]:
    return [p.name.value for p in parameters(fn) if _is_none(p.default)]


def _is_none(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _none_test(node: cst.CSTNode, params: set[str]) -> Optional[tuple[str, bool]]:
    """``p is None`` (p, True), ``p is not None`` (p, False), either way round, of ``params``."""
    if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1):
        return None
    op = node.comparisons[0].operator
    if not isinstance(op, (cst.Is, cst.IsNot)):
        return None
    sides = [node.left, node.comparisons[0].comparator]
    if not any(_is_none(s) for s in sides):
        return None
    other = sides[1] if _is_none(sides[0]) else sides[0]
    if not (isinstance(other, cst.Name) and other.value in params):
        return None
    return other.value, isinstance(op, cst.Is)


# -- the function differentiated: its fills ----------------------------------------------------
def _fill_entry(info: ModuleInfo, entry: str, placed: Placed) -> None:
    fn = info.functions[entry]
    params = {p.name.value for p in parameters(fn)}
    body = list(fn.body.body)
    for name in _none_params(fn):
        mentions = [k for k, st in enumerate(body) if any(n.value == name for n in all_names(st))]
        if not mentions:
            continue
        fill = _fill_of(body[mentions[0]], name)
        if fill is None or any(_none_test(n, {name}) for st in body[mentions[0] + 1:] for n in walk(st)) \
                or read_names(fill) & set(assigned_names(body[:mentions[0]])):
            continue  # (a parameter the fill reads, rebound before it: the gradient's entry has another)
        value = _library_spelled(fill, info, params - {name})
        if value is None:
            continue
        info.entry_none_fills[name] = value
        del body[mentions[0]]
    if len(body) != len(fn.body.body):
        at = PlacedRewriter(*placed)
        info.functions[entry] = at.place(fn.with_changes(body=at.place(fn.body.with_changes(body=body), fn.body)),
                                         fn)  # type: ignore[assignment]


def _fill_of(st: cst.CSTNode, name: str) -> Optional[cst.BaseExpression]:
    """``E`` of ``if name is None: name = E`` (no ``else``) or ``name = E if name is None else
    name`` (the other way round too), ``E`` not reading ``name``; else None."""
    if isinstance(st, cst.If):
        if st.orelse is not None or _none_test(st.test, {name}) != (name, True):
            return None
        small = st.body.body if isinstance(st.body, cst.SimpleStatementSuite) else (
            st.body.body[0].body if len(st.body.body) == 1 and isinstance(st.body.body[0], cst.SimpleStatementLine)
            else [])
        value = _assigned_value(small[0], name) if len(small) == 1 else None
    elif isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
        chosen = _assigned_value(st.body[0], name)
        if not isinstance(chosen, cst.IfExp):
            return None
        test = _none_test(chosen.test, {name})
        kept, value = (chosen.orelse, chosen.body) if test == (name, True) else (chosen.body, chosen.orelse)
        if test is None or not (isinstance(kept, cst.Name) and kept.value == name):
            return None
    else:
        return None
    return value if value is not None and name not in read_names(value) else None


def _assigned_value(small: cst.CSTNode, name: str) -> Optional[cst.BaseExpression]:
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
            and small.targets[0].target.value == name:
        return small.value
    return None


def _library_spelled(value: cst.BaseExpression, info: ModuleInfo, params: set[str]) -> Optional[cst.BaseExpression]:
    """``value`` with NumPy spelled ``np`` and math ``math`` (as the output imports them), where
    it reads nothing but ``params``, numbers, NumPy, math and a few builtins; else None."""
    attributes = {id(n.attr) for n in walk(value) if isinstance(n, cst.Attribute)}
    keywords = {id(n.keyword) for n in walk(value) if isinstance(n, cst.Arg) and n.keyword is not None}
    spelled: dict[str, str] = {}
    for n in all_names(value):
        if id(n) in attributes or id(n) in keywords or n.value in params or n.value in _FILL_BUILTINS:
            continue
        canonical = info.imports.get(n.value, "")
        module, _, rest = canonical.partition(".")
        if module not in ("numpy", "math"):
            return None
        spelled[n.value] = ("np" if module == "numpy" else "math") + ("." + rest if rest else "")
    return value.visit(_Respelled(spelled)) if spelled else value


class _Respelled(cst.CSTTransformer):
    def __init__(self, spelled: dict[str, str]):
        self.spelled = spelled

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        text = self.spelled.get(original.value)
        return cst.parse_expression(text) if text is not None else updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)


# -- helpers: an instance per choice of their calls ---------------------------------------------
def _none_choices(info: ModuleInfo, name: str) -> Optional[dict[cst.Call, frozenset[str]]]:
    """Each call of the helper ``name`` and the ``None`` parameters it leaves ``None``; None where
    it has none, or its calls cannot all be known (see the module)."""
    fn = info.functions[name]
    nones = _none_params(fn)
    if not nones or not all(_decidable(fn, p) for p in nones):
        return None
    names = [p.name.value for p in parameters(fn)]
    positional = len(fn.params.params) if fn.params.kwonly_params else None
    choices: dict[cst.Call, frozenset[str]] = {}
    for other_name, other in info.functions.items():
        for n in walk(other):
            if isinstance(n, cst.Name) and n.value == name and not _is_callee(other, n):
                return None  # passed as a value: its callers are unknown
            if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == name):
                continue
            bound, problem = bind_arguments(n, name, names, positional)
            if other_name == name or problem is not None:
                return None
            choices[n] = frozenset(p for p in nones if bound[names.index(p)] is None
                                   or _is_none(bound[names.index(p)].value))  # type: ignore[union-attr]
    return choices or None


def _decidable(fn: cst.FunctionDef, name: str) -> bool:
    """Every test of ``name is None`` in ``fn`` has one answer, which the call decides: the body
    never assigns ``name``, or its tests are all made before it does, in the first statement that
    mentions it (an assignment's value, an ``if``'s test)."""
    if name not in assigned_names([fn.body]):
        return True
    first = next(st for st in fn.body.body if any(n.value == name for n in all_names(st)))
    tests = [n for n in walk(fn.body) if _none_test(n, {name})]
    if isinstance(first, cst.If):
        before = list(walk(first.test))
    elif isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 \
            and _assigned_value(first.body[0], name) is not None:
        before = list(walk(first.body[0].value))  # type: ignore[attr-defined]
    else:
        return False
    return all(any(t is n for n in before) for t in tests)


def _instance(fn: cst.FunctionDef, none: frozenset[str], placed: Placed) -> Optional[cst.FunctionDef]:
    """``fn`` with its tests of ``None`` parameters decided, those of ``none`` left out; None where
    such a parameter is read before the body assigns it (other than passed on as ``None``)."""
    decider = _Decider(set(_none_params(fn)), none, *placed)
    out = fn.visit(decider)
    if not none:
        return out  # type: ignore[return-value]
    body = list(out.body.body)  # type: ignore[attr-defined]
    passed_on: dict[str, cst.BaseExpression] = {}
    for name in none:
        if name in assigned_names(body):
            mentions = [st for st in body if any(n.value == name for n in all_names(st))]
            first = mentions[0]
            if not (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1
                    and _assigned_value(first.body[0], name) is not None
                    and name not in read_names(first.body[0].value)):  # type: ignore[attr-defined]
                return None
        else:
            passed_on[name] = cst.Name("None")
    if passed_on:
        out = out.visit(_NoneRead(passed_on, *placed))
    kept = [p for p in out.params.params if p.name.value not in none]  # type: ignore[attr-defined]
    kwonly = [p for p in out.params.kwonly_params if p.name.value not in none]  # type: ignore[attr-defined]
    return out.with_changes(params=out.params.with_changes(params=kept, kwonly_params=kwonly))  # type: ignore


def _install(info: ModuleInfo, name: str, choices: dict[cst.Call, frozenset[str]],
             instances: dict[frozenset[str], cst.FunctionDef], placed: Placed) -> set[str]:
    """The helper's instances in ``info`` (one: under its name), its calls calling theirs without
    the ``None`` arguments; the instances' names."""
    names = _instance_names(info, name, instances)
    fn = info.functions[name]
    binding = info.function_bindings.get(name)
    del info.functions[name]
    at = PlacedRewriter(*placed)
    for none, instance in instances.items():
        new = names[none]
        if new != name:
            instance = instance.with_changes(name=at.place(cst.Name(new), fn.name))
        info.functions[new] = at.place(instance, fn)  # type: ignore[assignment]
        if binding is not None:
            info.function_bindings[new] = binding
    calls = {call: (names[none], none) for call, none in choices.items() if none or names[none] != name}
    for caller, other in list(info.functions.items()):
        rewriter = _InstanceCalls(calls, fn, *placed)
        out = other.visit(rewriter)
        if rewriter.changed:
            info.functions[caller] = out  # type: ignore[assignment]
    return set(names.values())


def _instance_names(info: ModuleInfo, name: str, instances: dict) -> dict[frozenset[str], str]:
    """The helper's own name for its one instance, or for the one its calls give every
    parameter; ``dense_no_b`` for the others."""
    out = {}
    for none in instances:
        if len(instances) == 1 or not none:
            out[none] = name
            continue
        out[none] = fresh_name(name + "_no_" + "_".join(sorted(none)),
                               {*info.functions, *info.imports, *info.constants, *info.other_globals, *out.values()})
    return out


class _Decider(PlacedRewriter):
    """Tests of ``None`` parameters decided (``none``: those that are ``None``), and the ``if``
    statements and conditional expressions they decide replaced by the branch taken."""

    def __init__(self, params: set[str], none: frozenset[str], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.params = params
        self.none = none

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        test = _none_test(original, self.params)
        if test is None:
            return updated
        name, is_none = test
        return self.place(cst.Name("True" if (name in self.none) == is_none else "False"), original)

    def leave_UnaryOperation(self, original, updated) -> cst.BaseExpression:
        truth = _truth(updated.expression)
        if isinstance(updated.operator, cst.Not) and truth is not None:
            return self.place(cst.Name("False" if truth else "True"), original)
        return updated

    def leave_BooleanOperation(self, original, updated) -> cst.BaseExpression:
        left, right = _truth(updated.left), _truth(updated.right)
        deciding = isinstance(updated.operator, cst.Or)  # True decides an or, False an and
        if left is not None:
            return updated.left if left == deciding else updated.right
        if right is not None and right != deciding:
            return updated.left
        return updated

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        truth = _truth(updated.test)
        if truth is None:
            return updated
        return updated.body if truth else updated.orelse

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body = decided_statements(list(updated.body))
        if len(body) == len(updated.body) and all(a is b for a, b in zip(body, updated.body)):
            return updated
        return updated.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])


def _truth(e: cst.BaseExpression) -> Optional[bool]:
    if isinstance(e, cst.Name) and e.value in ("True", "False"):
        return e.value == "True"
    return None


class _NoneRead(VariableRewriter):
    """Each read of a parameter left out, which is ``None`` there, written ``None``."""

    def __init__(self, values: dict[str, cst.BaseExpression], positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.values = values

    def leave_Param(self, original: cst.Param, updated: cst.Param) -> cst.Param:
        return updated.with_changes(name=original.name)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        value = self.values.get(original.value)
        return self.place(value.deep_clone(), original) if value is not None else updated


class _InstanceCalls(PlacedRewriter):
    """Each call of ``calls`` calling its instance, without the arguments that are ``None``
    (written ``None``: the parameter is not the instance's)."""

    def __init__(self, calls: dict[cst.Call, tuple[str, frozenset[str]]], fn: cst.FunctionDef, positions,
                 new_positions: dict):
        super().__init__(positions, new_positions)
        self.calls = calls
        self.names = [p.name.value for p in parameters(fn)]
        self.positional = len(fn.params.params) if fn.params.kwonly_params else None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if original not in self.calls:
            return updated
        instance, none = self.calls[original]
        bound, _ = bind_arguments(original, instance, self.names, self.positional)
        gone = {id(a) for p, a in zip(self.names, bound) if a is not None and p in none}
        args = [new for old, new in zip(original.args, updated.args) if id(old) not in gone]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self.changed = True
        return self.place(updated.with_changes(func=self.place(cst.Name(instance), original.func), args=args),
                          original)
