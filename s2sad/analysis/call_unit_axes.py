"""The unit axes of what a helper returns, written on each call of it (``array_ops.CALL_UNIT_AXES``).

``array_ops.shape_unit_axes`` knows an axis is one long from the op that made the array. A helper's
array result is made in the helper, so without this a caller compiled without inlining (``-O0``)
would take ``np.max(z, axis=1, keepdims=True)`` returned by ``center(z)`` to be as wide as ``z``,
and the adjoint of ``z - center(z)`` would not sum over the axis it stretched. Each call is told
the axes that are one long in every value its callee returns; callees are marked before their
callers, so a helper's helper counts too (a recursive call, met before its callee is done, claims
none)."""

from __future__ import annotations

from ..ssa.array_ops import CALL_UNIT_AXES, shape_unit_axes
from ..ssa.callgraph import module_callees_first
from ..ssa.ir import Function, Module


def mark_call_unit_axes(module: Module) -> None:
    returned: dict[str, list[frozenset[int]]] = {}
    for fn in module_callees_first(module):
        for op in fn.walk():
            if op.name == "call":
                units = returned.get(op.attrs.get("callee", ""), [])
                if any(units) and len(units) == len(op.results):
                    op.attrs[CALL_UNIT_AXES] = [sorted(u) for u in units]
                else:
                    op.attrs.pop(CALL_UNIT_AXES, None)
        returned[fn.name] = _returned_unit_axes(fn)


def _returned_unit_axes(fn: Function) -> list[frozenset[int]]:
    """For each value ``fn`` returns, the axes one long in it wherever it is returned."""
    out: list[frozenset[int]] = []
    for op in fn.walk():
        if op.name == "return":
            units = [shape_unit_axes(v) for v in op.operands]
            out = units if not out else [a & b for a, b in zip(out, units)]
    return out
