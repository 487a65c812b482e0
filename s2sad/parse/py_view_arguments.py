"""A part of an array passed to a function of the file that writes the array through another
argument: refused, where NumPy's view and s2sad's copy of the part differ.

NumPy passes ``w[1:]`` (a slice, a row, a transpose) as a view: a write the callee makes to
``w`` through another parameter shows through it. The IR's part of an array is a value of its
own, taken at the call (``arr.slice``), which is what a view is as long as nothing writes its
array; here something does (``chain(w[1:], w)``, with ``chain`` writing its second parameter),
and the callee could read through the part what it wrote before, which a copy does not show.
"""

from __future__ import annotations

from ..analysis.effects import array_root, written_params
from ..diagnostics import Diagnostic, DiagnosticError
from ..ssa.array_ops import PREFIX
from ..ssa.ir import Module, Op

# The parts of an array NumPy gives as views of it.
_VIEWS = tuple(PREFIX + n for n in ("slice", "transpose", "reshape"))


def parts_written_through_others(module: Module) -> list[Diagnostic]:
    """One located error per call of a function of ``module`` that is given a part of an array and
    the array itself (or another part of it), and writes the latter."""
    problems = []
    memo: dict[str, set[int]] = {}
    for fn in module.functions.values():
        for op in fn.walk():
            callee = module.functions.get(op.attrs.get("callee", "")) if op.name == "call" else None
            if callee is None:
                continue
            try:
                written = written_params(module, callee, memo)
            except DiagnosticError:
                continue  # (lowering the callee reports it)
            problem = _part_and_writer(op, callee.params, written)
            if problem is not None:
                part, writer = problem
                source = callee.attrs.get("specialized_from", callee.name)
                problems.append(Diagnostic(
                    f"'{source}' writes the array it is given as '{writer}' while it may read a part of that "
                    f"array given as '{part}': NumPy passes the part as a view, which shows those writes, and "
                    "s2sad passes it as a copy made at the call",
                    op.loc, hint="pass a copy of the part (....copy()) if that is what is meant, or pass the "
                                 f"array alone and index it in '{source}'"))
    return problems


def _part_and_writer(call: Op, params: list, written: set[int]) -> "tuple[str, str] | None":
    """The parameters (names) of a part of an array and of a written argument holding that
    array, among ``call``'s operands; None where there are none."""
    for k, v in enumerate(call.operands):
        made = v.defining_op
        if made is None or made.name not in _VIEWS or k >= len(params):
            continue
        root = array_root(made.operands[0])
        for j, w in enumerate(call.operands):
            if j != k and j in written and j < len(params) and w.type.is_array and root is not None \
                    and _root_through_parts(w) is root:
                return params[k].name_hint, params[j].name_hint
    return None


def _root_through_parts(v):
    """The root of ``v``, or of the array ``v`` is a part of."""
    made = v.defining_op
    while made is not None and made.name in _VIEWS:
        v = made.operands[0]
        made = v.defining_op
    return array_root(v)
