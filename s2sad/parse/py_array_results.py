"""Helpers that return arrays: each call's array result must be new memory.

The IR takes the array a call returns for memory of its own (``ssa/opdefs``: a fresh root, as an
``alloc`` or a whole-array op's result), whose adjoint the reverse sweep gathers and hands to the
callee's gradient as its ``d_return``. That is what the callee does when it makes the array it
returns (``return np.tanh(W @ x + b)``, ``y = np.zeros(n)`` filled then returned, the result of
another such call). A helper that returns a parameter or part of one (``return x``,
``return A[0]``), or an array chosen by control flow, gives its caller a second name for memory
the caller has: the call is refused, located, with the copy to write.
"""

from __future__ import annotations

from ..analysis.effects import array_root, is_param
from ..diagnostics import Diagnostic
from ..ssa.array_ops import PREFIX as ARR
from ..ssa.ir import Function, Module


def shared_array_results(module: Module) -> list[Diagnostic]:
    """One located error per call of a function of ``module`` that returns an array it did not make."""
    problems = []
    for fn in module.functions.values():
        for op in fn.walk():
            if op.name != "call" or not any(r.type.is_array for r in op.results):
                continue
            callee = module.functions.get(op.attrs["callee"])
            shared = _shared_result(callee) if callee is not None else None
            if shared is None:
                continue
            source = callee.attrs.get("specialized_from", callee.name)
            problems.append(Diagnostic(
                f"calling '{source}', which returns {shared}, is not supported: the caller's array would share "
                "memory with it",
                op.loc,
                hint=f"return a new array from '{source}' (np.array(...) copies one)"))
    return problems


def array_returning_helpers(module: Module, root: str) -> dict[str, list[int]]:
    """The helpers (by source name) that return an array, each with where it returns it
    (line, column, end line, end column): what C output, which has no array results, refuses."""
    out: dict[str, list[int]] = {}
    for fn in module.functions.values():
        ret = fn.body.terminator
        if fn.name != root and any(v.type.is_array for v in ret.operands) and ret.loc is not None:
            source = fn.attrs.get("specialized_from", fn.name)
            out.setdefault(source, [ret.loc.line, ret.loc.col, ret.loc.end_line, ret.loc.end_col])
    return dict(sorted(out.items()))


def _shared_result(fn: Function) -> str | None:
    """How ``fn`` returns an array it did not make, in words; None where every array it returns is new."""
    for v in fn.body.terminator.operands:
        if not v.type.is_array:
            continue
        base = v
        while base.defining_op is not None and base.defining_op.name in _NUMPY_VIEWS:
            base = base.defining_op.operands[0]
        root = array_root(base)
        if root is None:
            return "an array chosen by control flow"
        if is_param(root):
            what = "its parameter" if root is v else "a view of its parameter"
            return f"{what} '{root.name_hint}'"
    return None


# What NumPy makes as a view of its operand's memory (a slice, a transpose, a reshape), which the
# IR takes for a value: returned from a helper, it would let the caller's writes reach it.
_NUMPY_VIEWS = ("view", ARR + "slice", ARR + "transpose", ARR + "reshape")
