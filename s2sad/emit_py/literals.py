"""Arrays filled element by element right after they are made, printed as one literal.

The IR makes an array literal (``np.array([0.1, 0.5, 2.0])`` in the source, a module table)
as an allocation and one store per element, which prints as ``w = np.empty(3)`` and three
assignments. A run of statements that makes an array by ``np.empty`` of constant extents and
then stores every element once, in C order, values that do not read the array, is that
array's literal: ``w = np.array([0.1, 0.5, 2.0])``, nested lists for a matrix. The dtype is
written out unless every element is a float literal: from integers, or from a number the
caller passed as an int, NumPy would make an integer array where ``np.empty`` made a float one.
"""

from __future__ import annotations

import itertools
import math
from typing import Optional

from ..emit.expr import Attribute, Call, Expr, ListLit, Lit, Name, Subscript, Tuple, Unary, call, names_in
from ..emit.stmt import Assign, Stmt, map_blocks

MAX_ELEMENTS = 4096  # past this, a literal is a wall of numbers: the stores are left as they are


def array_literals(stmts: list[Stmt]) -> list[Stmt]:
    """``stmts`` (and the blocks they hold) with each array made and then filled, element by
    element, written as its literal."""
    out: list[Stmt] = []
    k = 0
    while k < len(stmts):
        made = _made_empty(stmts[k])
        if made is not None:
            name, shape, dtype = made
            count = math.prod(shape)
            values = _filled(stmts[k + 1:k + 1 + count], name, shape)
            if values is not None:
                out.append(Assign([Name(name)], _literal(values, shape, dtype)))
                k += 1 + count
                continue
        out.append(map_blocks(stmts[k], array_literals))
        k += 1
    return out


def _made_empty(st: Stmt) -> Optional[tuple[str, tuple[int, ...], Optional[Expr]]]:
    """(name, extents, the dtype argument if any) of ``name = np.empty(extents[, dtype=...])``
    with constant extents."""
    if not (isinstance(st, Assign) and len(st.targets) == 1 and isinstance(st.targets[0], Name)):
        return None
    value = st.value
    if not (isinstance(value, Call) and value.func == Attribute(Name("np"), "empty") and len(value.args) == 1):
        return None
    kwargs = dict(value.kwargs)
    if set(kwargs) - {"dtype"}:
        return None
    arg = value.args[0]
    dims = arg.elts if isinstance(arg, Tuple) else (arg,)
    if not dims or not all(isinstance(d, Lit) and d.text.isdigit() and int(d.text) > 0 for d in dims):
        return None
    shape = tuple(int(d.text) for d in dims)  # type: ignore[attr-defined]
    if math.prod(shape) > MAX_ELEMENTS:
        return None
    return st.targets[0].id, shape, kwargs.get("dtype")


def _filled(stores: list[Stmt], name: str, shape: tuple[int, ...]) -> Optional[list[Expr]]:
    """The values ``stores`` give every element of ``name``, one store each in C order; None when
    they are not exactly that."""
    if len(stores) != math.prod(shape):
        return None
    values: list[Expr] = []
    for st, index in zip(stores, itertools.product(*(range(n) for n in shape))):
        if not (isinstance(st, Assign) and len(st.targets) == 1 and isinstance(st.targets[0], Subscript)):
            return None
        target = st.targets[0]
        if target.value != Name(name) or target.index != tuple(Lit(str(i)) for i in index):
            return None
        if name in names_in(st.value):
            return None
        values.append(st.value)
    return values


def _literal(values: list[Expr], shape: tuple[int, ...], dtype: Optional[Expr]) -> Expr:
    nested: Expr = ListLit(tuple(values))
    for n in reversed(shape[1:]):  # rows of the last axis first
        flat = nested.elts  # type: ignore[attr-defined]
        nested = ListLit(tuple(ListLit(flat[i:i + n]) for i in range(0, len(flat), n)))
    if dtype is None and not all(_float_literal(v) for v in values):
        dtype = Attribute(Name("np"), "float64")
    return call("np.array", nested, dtype=dtype) if dtype is not None else call("np.array", nested)


def _float_literal(e: Expr) -> bool:
    if isinstance(e, Unary) and e.op == "-":
        e = e.operand
    return isinstance(e, Lit) and any(c in e.text for c in ".eE") and not e.text.startswith("0x")
