"""A list rebound to what it is made into, an array to a part of it of another rank: two
variables, renamed before typing.

Code collects values in a list and then makes an array of them under the same name
(``resid = []``, appends in a loop, ``resid = np.array(resid)``). A variable of s2sad's IR has one
kind, and a list is not an array; but where the rebinding is a statement of the function's body
itself (not under a loop or an ``if``), every statement after it reads the new value and every one
before it the list: two variables, as if the second were spelled otherwise. So the second is
renamed, in that statement's target and in every statement after it (``resid_array``, or
``<name>_2`` for a value other than ``np.array``/``np.asarray`` of it, made free of every name of
the file). A list rebound under a loop or an ``if`` stays as written, and is refused where it is
assigned.

So is an array rebound to what picks or reshapes it into what may have another rank
(``d = d[d > 0]`` of a matrix of pair distances, ``x = x.reshape(n, 3)``, ``A = np.sum(A,
axis=1)``; probe round 10): ``d_2`` from there on.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import all_names, fresh_name, target_names
from .py_module import ModuleInfo
from .py_spellings import VariableRewriter


def rename_rebound_lists(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Rename, in every function of ``info``, the lists rebound at the top level of the body to
    what is not a list; the positions of the new nodes."""
    new_positions: dict[cst.CSTNode, object] = {}
    taken = {n.value for fn in info.functions.values() for n in all_names(fn)} | set(info.functions)
    for name, fn in list(info.functions.items()):
        body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else []
        while True:
            params = {p.name.value for p in fn.params.params}
            found = _rebinding(list(body), info, params)
            if found is None:
                break
            k, var, value = found
            wanted = f"{var}_array" if _made_array(value, var, info) else f"{var}_2"
            rewriter = _Renamer(var, fresh_name(wanted, taken), positions, new_positions)
            first = body[k]
            assert isinstance(first, cst.SimpleStatementLine)
            assign = first.body[0]
            assert isinstance(assign, cst.Assign)
            target = rewriter.place(assign.targets[0].with_changes(target=assign.targets[0].target.visit(rewriter)),
                                    assign.targets[0])
            new_assign = rewriter.place(assign.with_changes(targets=[target]), assign)
            new_first = rewriter.place(first.with_changes(body=[new_assign]), first)
            body = [*body[:k], new_first, *[st.visit(rewriter) for st in body[k + 1:]]]
            fn = fn.with_changes(body=fn.body.with_changes(body=body))
            rewriter.place(fn, info.functions[name])
            info.functions[name] = fn
    return new_positions


def _rebinding(body: list, info: ModuleInfo, params: set[str]) -> Optional[tuple[int, str, cst.BaseExpression]]:
    """The first statement of ``body`` that rebinds a list made before it to what is not a list,
    or an array (a parameter, or a variable bound before) to a part of it of another rank: its
    index, the name and the value."""
    lists: set[str] = set()
    bound = set(params)
    for k, st in enumerate(body):
        assign = _single_assign(st)
        if assign is None:
            continue
        var, value = assign
        if _is_list(value):
            lists.add(var)
        elif var in lists or var in bound and _of_another_rank(value, var, info):
            return k, var, value
        bound.add(var)
    return None


# Calls that make an array of another rank than their first argument's, and methods that do.
_RESHAPING = frozenset("numpy." + f for f in ("ravel", "reshape", "squeeze", "expand_dims", "atleast_2d", "outer",
                                              "diag", "sum", "mean", "max", "min", "prod", "std", "var", "amax",
                                              "amin"))
_RESHAPING_METHODS = frozenset({"ravel", "flatten", "reshape", "squeeze", "sum", "mean", "max", "min", "prod",
                                "std", "var"})


def _of_another_rank(value: cst.BaseExpression, var: str, info: ModuleInfo) -> bool:
    """Whether ``value`` picks or reshapes ``var`` into what may have another rank: ``d[d > 0]``,
    ``X[idx]``, ``A[0]``, ``x.reshape(n, m)``, ``np.sum(A * A, axis=1)`` (not ``x[1:]``, ``x * 2``,
    which keep it). Renaming such a rebinding changes no value: each statement reads what it read."""
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and value.value.value == var:
        return any(not (isinstance(e.slice, cst.Slice) or isinstance(e.slice, cst.Index) and isinstance(
            e.slice.value, cst.Name) and e.slice.value.value == "None") for e in value.slice)
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == var \
            and info.canonical_name(func) is None:
        return func.attr.value in _RESHAPING_METHODS and (func.attr.value not in _REDUCING or bool(value.args))
    first = value.args[0].value if value.args else None
    canonical = info.canonical_name(func) or ""
    return first is not None and any(n.value == var for n in all_names(first)) and canonical in _RESHAPING \
        and (canonical[len("numpy."):] not in _REDUCING or len(value.args) > 1)


# Reductions: of another rank with an axis only (a whole one makes a number, which the typing
# of an array variable refuses anyway, as it did)
_REDUCING = frozenset({"sum", "mean", "max", "min", "prod", "std", "var", "amax", "amin"})


def _single_assign(st: cst.CSTNode) -> Optional[tuple[str, cst.BaseExpression]]:
    """``name = value``, a statement of its own."""
    if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 and isinstance(st.body[0], cst.Assign)):
        return None
    assign = st.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    return target_names(assign.targets[0].target)[0], assign.value


def _is_list(value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.List, cst.ListComp)) or (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "list")


def _made_array(value: cst.BaseExpression, var: str, info: ModuleInfo) -> bool:
    """``np.array(var)``/``np.asarray(var)``."""
    return isinstance(value, cst.Call) and info.canonical_name(value.func) in ("numpy.array", "numpy.asarray") \
        and bool(value.args) and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == var


class _Renamer(VariableRewriter):
    """Every use of one name, renamed (nested scopes too: a lambda reads the new value)."""

    def __init__(self, old: str, new: str, positions, new_positions: dict):
        super().__init__(positions, new_positions)
        self.old = old
        self.new = new

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if original.value != self.old:
            return updated
        return self.place(cst.Name(self.new), original)  # type: ignore[return-value]
