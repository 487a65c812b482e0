"""Module-level arrays made from literals, read by a function as the arrays they are.

NumPy code keeps fixed tables at the top of its file (``TAUS = np.array([0.1, 0.5, 0.9])``,
``NODES = np.linspace(-1.0, 1.0, 5)``, ``WEIGHTS = [0.2, 0.3, 0.5]``) and reads them in its
functions. A function that reads such a name, and neither binds it nor writes into it, gets the
module's assignment as its first statement (after its docstring): the table is then a local the
front end types and lowers as any other, and the gradient, a file of its own with no module to
read it from, makes it again where it starts, named as the source names it.

Only tables of literals: numbers (and the module's numeric constants, ``np.pi``), lists and
tuples of them, arithmetic of them, and NumPy's array makers of them (``np.array``,
``np.linspace``, ``np.zeros``, ...). A table some function of the file writes into
(``TAUS[0] = 0.2``, ``TAUS.sort()``, ``out=TAUS``) changes from one call to the next in the
primal, which a table made again in each call would not: there the name stays refused, as
every other module-level value is (``py_expr``: "not a numeric constant").
"""

from __future__ import annotations

import libcst as cst

from .py_flow import stmt_assigned, walk
from .py_intrinsics import CONSTANTS
from .py_module import ModuleInfo
from .py_spellings import PlacedRewriter
from .py_writers import written_in, written_params

# NumPy functions that make an array from the numbers they are given.
_MAKERS = frozenset(f"numpy.{f}" for f in ("array", "asarray", "linspace", "arange", "zeros", "ones", "full",
                                           "eye", "identity"))
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)


def inline_module_arrays(info: ModuleInfo, positions) -> dict[cst.CSTNode, object]:
    """Give every function of ``info`` that reads a module-level table of literals the assignment
    that made it; the positions of the new nodes."""
    tables = {name: value for name, (value, _) in info.values.items() if _is_table(value, info)}
    if not tables:
        return {}
    writes = written_params(info)
    written = set().union(*(written_in(fn.body, info, writes) & set(tables) for fn in info.functions.values()))
    tables = {name: value for name, value in tables.items() if name not in written}
    new_positions: dict[cst.CSTNode, object] = {}
    for name, fn in list(info.functions.items()):
        params = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params)}
        bound = params | set(stmt_assigned(fn.body)) | _declared(fn)
        names = {n.value for n in walk(fn.body) if isinstance(n, cst.Name)}
        read = [t for t in tables if t not in bound and t in names]
        if not read:
            continue
        rewriter = PlacedRewriter(positions, new_positions)
        # each made where the module's value stands (the statement where the module's does)
        made = [rewriter.place(cst.SimpleStatementLine([rewriter.place(
            cst.Assign([cst.AssignTarget(cst.Name(t))], tables[t]), tables[t], whole=True)]), info.values[t][1])
            for t in read]
        body = list(fn.body.body)
        at = 1 if body and _is_docstring(body[0]) else 0
        out = fn.with_changes(body=fn.body.with_changes(body=[*body[:at], *made, *body[at:]]))
        rewriter.place(out, fn)
        info.functions[name] = out
    return new_positions


def _is_table(e: cst.BaseExpression, info: ModuleInfo, top: bool = True) -> bool:
    """An array made from literals (at the top: a list, a tuple or a maker's call; inside: numbers too)."""
    if isinstance(e, (cst.List, cst.Tuple)):
        return bool(e.elements) and all(isinstance(el, cst.Element) and _is_table(el.value, info, False)
                                        for el in e.elements)
    if isinstance(e, cst.Call):
        return info.canonical_name(e.func) in _MAKERS and all(
            not a.star and (_is_table(a.value, info, False) or a.keyword is not None and a.keyword.value == "dtype")
            for a in e.args)
    if top:
        return False
    if isinstance(e, (cst.Integer, cst.Float)):
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        return _is_table(e.expression, info, False)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, _ARITHMETIC):
        return _is_table(e.left, info, False) and _is_table(e.right, info, False)
    if isinstance(e, cst.Name):
        return e.value in info.constants
    return isinstance(e, cst.Attribute) and info.canonical_name(e) in CONSTANTS


def _declared(fn: cst.FunctionDef) -> set[str]:
    """The names ``fn`` declares ``global`` or ``nonlocal``."""
    return {name.name.value for n in walk(fn.body) if isinstance(n, (cst.Global, cst.Nonlocal)) for name in n.names}


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr) \
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
