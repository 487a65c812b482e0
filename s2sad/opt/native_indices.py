"""Python's own negative indices for the Python targets: each ``select`` marked ``FROM_END``
(``ssa.build.from_end``: ``k + n`` where ``k < 0``) becomes its index ``k`` again.

The front end counts an index that may be negative from the end as Python does, so that C and
CUDA output, where ``x[-1]`` reads before the array, index as the source does. NumPy and Numba
count from the end themselves: their output reads ``x[i - 1]`` as the source wrote it, and a
stencil's adjoint keeps the shape the ``gather`` pass recognizes. The comparison and the sum
the select chose between go with it (DCE).
"""

from __future__ import annotations

from ..analysis.effects import PassContext
from ..ssa.attrs import FROM_END
from ..ssa.ir import Module, erase_ops
from .dce import dce_module


def run(module: Module, ctx: PassContext) -> None:
    counted = [op for fn in module.functions.values() for op in fn.walk()
               if op.name == "select" and op.attrs.get(FROM_END)]
    for op in counted:
        op.results[0].replace_all_uses_with(op.operands[2])
    erase_ops(counted)
    if counted:
        dce_module(module, ctx.called_from_outside)
