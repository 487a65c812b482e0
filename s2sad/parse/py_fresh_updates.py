"""An in-place update of a value nothing else holds, ``ll += y * a``, read as the rebinding
``ll = ll + y * a``, before typing.

NumPy code often computes a value and then corrects it in place:

    ll = np.log(y + b)
    ll += y * a

Typing takes an in-place update for a store into an array, so ``ll`` must be one, and with it
``y + b``: a parameter of that sum is then taken for a vector and the others for numbers, which
refuses the caller's vectors at the gradient's entry (probe round 10, a negative-binomial
log-likelihood). Written ``ll = ll + y * a``, the same code keeps every parameter shape-generic.

The two are one computation when no other name holds the value updated: an in-place update is
seen only through the names of the object it writes. So the update is rewritten where it is a
statement of the function's body itself (not under a loop or an ``if``), the statement binding
the name before it is one of the body too, binds it to a value made there (arithmetic, or a
NumPy call that makes a new array, not a view: ``np.log(...)``, ``np.zeros(n)``, ``x.copy()``),
and no statement between the two reads the name (so nothing can have taken a second reference
to it, a view included) or binds it under a loop or an ``if``. (An update NumPy refuses, one that
would grow the array by broadcasting or turn a float array's elements to integers, is an error
of the primal either way.) A number's ``+=`` is a rebinding already: numbers are left as written.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from .py_flow import read_names, stmt_assigned
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter

# The binary operator of each augmented assignment.
_OPERATORS: dict[type, type] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.PowerAssign: cst.Power, cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo, cst.MatrixMultiplyAssign: cst.MatrixMultiply,
}
# NumPy functions whose result may share its argument's memory (a view, or the array itself).
_VIEWS = frozenset("numpy." + f for f in (
    "reshape", "ravel", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "atleast_1d", "atleast_2d",
    "atleast_3d", "squeeze", "transpose", "swapaxes", "moveaxis", "rollaxis", "expand_dims", "broadcast_to",
    "diagonal", "real", "imag", "flip", "fliplr", "flipud", "rot90", "require", "matrix_transpose"))


def rebind_fresh_updates(info: ModuleInfo, positions) -> dict:
    """Rewrite, in every function of ``info``, the in-place updates of fresh values its body makes
    as rebindings (see the module docstring); the positions of the new nodes."""
    new_positions: dict = {}
    for name, fn in list(info.functions.items()):
        if not isinstance(fn.body, cst.IndentedBlock):
            continue
        written = list(fn.body.body)
        body = list(written)  # (read as written: an update before is fresh if its value was)
        params = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params)}
        placer = PlacedRewriter(positions, new_positions)
        changed = False
        for k, st in enumerate(written):
            update = _update(st)
            if update is None or update.target.value in params:  # type: ignore[union-attr]
                continue
            if _fresh_before(written, k, update.target.value, info):  # type: ignore[union-attr]
                body[k] = _rebinding(st, update, placer)
                changed = True
        if changed:
            new = fn.with_changes(body=fn.body.with_changes(body=body))
            placer.place(new, fn)
            info.functions[name] = new
    return new_positions


def _update(st: cst.CSTNode) -> Optional[cst.AugAssign]:
    """``name op= value``, a statement of its own."""
    if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 and isinstance(st.body[0], cst.AugAssign) \
            and isinstance(st.body[0].target, cst.Name) and type(st.body[0].operator) in _OPERATORS:
        return st.body[0]
    return None


def _fresh_before(body: list, k: int, var: str, info: ModuleInfo) -> bool:
    """Whether the statement of ``body`` that last binds ``var`` before the ``k``-th binds it to a
    value made there (or is itself an update rewritten so), with no statement between reading it
    or binding it otherwise."""
    for j in reversed(range(k)):
        st = body[j]
        earlier = _update(st)
        if earlier is not None and earlier.target.value == var:  # type: ignore[union-attr]
            return _fresh_before(body, j, var, info)
        if var in stmt_assigned(st):
            value = _single_binding(st, var)
            return value is not None and var not in read_names(value) and _makes_new(value, info)
        if var in read_names(st) or _declares(st, var):
            return False
    return False


def _single_binding(st: cst.CSTNode, var: str) -> Optional[cst.BaseExpression]:
    """The value of ``var = value``, a statement of its own with one target."""
    if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
        return None
    small = st.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
            and small.targets[0].target.value == var:
        return small.value
    return None


def _declares(st: cst.CSTNode, var: str) -> bool:
    """``global var``, ``nonlocal var``, ``del var``."""
    if not isinstance(st, cst.SimpleStatementLine):
        return False
    for small in st.body:
        if isinstance(small, (cst.Global, cst.Nonlocal)) and any(n.name.value == var for n in small.names):
            return True
        if isinstance(small, cst.Del):
            return True
    return False


def _makes_new(value: cst.BaseExpression, info: ModuleInfo) -> bool:
    """Whether ``value`` is an array made where it is computed, which no other name holds:
    arithmetic, or a NumPy (or SciPy special) function that returns no view, or ``x.copy()``.
    A literal number is none (its update is a rebinding already)."""
    if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    canonical = info.canonical_name(func) or ""
    if canonical.startswith(("numpy.", "scipy.special.")):
        return canonical not in _VIEWS and canonical.count(".") == 1 + canonical.startswith("scipy.") \
            and not any(a.keyword is not None and a.keyword.value in ("copy", "out") for a in value.args)
    return isinstance(func, cst.Attribute) and func.attr.value == "copy" and not value.args \
        and info.canonical_name(func) is None


def _rebinding(st: cst.SimpleStatementLine, update: cst.AugAssign, placer: PlacedRewriter) -> cst.CSTNode:
    """``var = var op (value)`` in place of ``var op= value``."""
    target = update.target
    assert isinstance(target, cst.Name)
    value = update.value
    if not value.lpar and isinstance(value, (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison,
                                             cst.IfExp, cst.UnaryOperation, cst.Lambda)):
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        placer.place(value, update.value)
    operator = placer.place(_OPERATORS[type(update.operator)](), update.operator)
    read = placer.place(cst.Name(target.value), target)
    combined = placer.place(cst.BinaryOperation(left=read, operator=operator, right=value), update)  # type: ignore[arg-type]
    written = placer.place(cst.AssignTarget(target=placer.place(cst.Name(target.value), target)), target)
    assign = placer.place(cst.Assign(targets=[written], value=combined), update)  # type: ignore[list-item]
    return placer.place(st.with_changes(body=[assign]), st)
