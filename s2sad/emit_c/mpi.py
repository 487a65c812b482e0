"""MPI calls in C: each ``mpi.`` op (``ssa/mpi``) as the call of ``<mpi.h>`` it stands for.

The op's table row gives C's arguments in order; what is not an operand is spelled here: the
datatype of the buffer before it (``MPI_DOUBLE`` for an
array of double), the reduction (``MPI_SUM``), ``MPI_STATUS_IGNORE`` and ``MPI_IN_PLACE``.
"""

from __future__ import annotations

from ..diagnostics import error
from ..emit.expr import Call, Expr, Name
from ..emit.stmt import ExprStmt, Stmt
from .cexpr import address_of
from ..ssa.ir import Op
from ..ssa.mpi import REDUCTION_OPS, call_of

# the element type of a buffer -> its MPI datatype
DATATYPES = {"f64": "MPI_DOUBLE", "f32": "MPI_FLOAT", "i32": "MPI_INT", "i64": "MPI_LONG"}
_REDUCTIONS = {op: name for name, op in REDUCTION_OPS.items()}
_FIXED = {"status": "MPI_STATUS_IGNORE", "in_place": "MPI_IN_PLACE"}


class CMpi:
    """``mpi.`` ops as statements (a mixin of ``CFunctionEmitter``)."""

    def _mpi(self, op: Op) -> list[Stmt]:
        if "c_params" not in self.fn.attrs:  # type: ignore[attr-defined]
            raise error("C output of a Python program's MPI communication is not supported", op.loc,
                        hint="use --target py")
        call = call_of(op)
        if op.name == "mpi.wait":  # MPI_Waitall of the source: a wait per request, in order
            return [ExprStmt(Call(Name("MPI_Wait"), (address_of(self.expr(r)), Name("MPI_STATUS_IGNORE"))))  # type: ignore
                    for r in op.operands]
        args: list[Expr] = []
        buffer = None
        for arg in call.c_args:
            if arg in ("request", "result"):  # &req of MPI_Isend, &rank of MPI_Comm_rank
                args.append(address_of(Name(self.var[op.result])))  # type: ignore[attr-defined]
            elif arg in _FIXED:
                args.append(Name(_FIXED[arg]))
            elif arg == "type":
                args.append(Name(DATATYPES[buffer.type.elem.name]))  # type: ignore[union-attr]
            elif arg == "op":
                args.append(Name(_REDUCTIONS[op.attrs["op"]]))
            else:
                v = call.operand(op, arg)
                if v.type.is_array:
                    buffer = v
                args.append(self.expr(v))  # type: ignore[attr-defined]
        return [ExprStmt(Call(Name(call.c_name), tuple(args)))]
