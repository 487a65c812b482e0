"""Helpers that return arrays: each call's array result must be new memory.

The IR takes the array a call returns for memory of its own (``ssa/opdefs``: a fresh root, as an
``alloc`` or a whole-array op's result), whose adjoint the reverse sweep gathers and hands to the
callee's gradient as its ``d_return``. That is what the callee does when it makes the array it
returns (``return np.tanh(W @ x + b)``, ``y = np.zeros(n)`` filled then returned, the result of
another such call). A helper that returns a parameter or part of one (``return x``,
``return A[0]``, ``return theta[:3], theta[3:]``, or what a call of such a helper returns), gives
its caller a second name for memory the caller has. Where nothing writes that memory from the
call on (the caller, its loops' later passes and its callees), the two names always hold the same
values, and the result is the copy the IR takes it for; elsewhere the call is refused, located,
with the copy to write. So is a call of a helper that returns an array chosen by control flow.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.effects import array_root, is_param, known_root, written_at_or_after
from ..diagnostics import Diagnostic
from ..ssa.array_ops import PREFIX as ARR
from ..ssa.ir import Function, Module


def shared_array_results(module: Module) -> list[Diagnostic]:
    """One located error per call of a function of ``module`` that returns an array it did not
    make, where the memory it shares may be written from the call on."""
    problems = []
    shares: dict[str, dict[int, tuple[str, Optional[int]]]] = {}
    for fn in module.functions.values():
        for op in fn.walk():
            if op.name != "call" or not any(r.type.is_array for r in op.results):
                continue
            callee = module.functions.get(op.attrs["callee"])
            shared = _shared_results(module, callee, shares) if callee is not None else {}
            if not shared:
                continue
            written = written_at_or_after(module, op)
            unsafe = [what for what, param in shared.values()
                      if param is None or known_root(op.operands[param]) in written]
            if not unsafe:
                continue  # views of arrays that keep their values while the results live
            shared = unsafe[0]
            source = callee.attrs.get("specialized_from", callee.name)
            problems.append(Diagnostic(
                f"calling '{source}', which returns {shared}, is not supported here: the caller's array would "
                "share memory with it" + ("" if "control flow" in shared else ", and may be written while it does"),
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


def _shared_results(module: Module, fn: Function, memo: dict[str, dict[int, tuple[str, Optional[int]]]]
                    ) -> dict[int, tuple[str, Optional[int]]]:
    """The array results of ``fn`` it did not make: result index -> how it returns it, in words,
    and the index of the parameter whose memory it is (None: an array chosen by control flow).
    A result a call of such a function returns is the memory of that call's argument."""
    if fn.name in memo:
        return memo[fn.name]
    memo[fn.name] = {}  # (a recursive function: its own calls share nothing more)
    out: dict[int, tuple[str, Optional[int]]] = {}
    for k, v in enumerate(fn.body.terminator.operands):
        if not v.type.is_array:
            continue
        base = v
        while True:
            while base.defining_op is not None and base.defining_op.name in _NUMPY_VIEWS:
                base = base.defining_op.operands[0]
            root = array_root(base)
            made = root.defining_op if root is not None else None
            if made is None or made.name != "call" or made.attrs["callee"] not in module.functions:
                break
            inner = _shared_results(module, module.functions[made.attrs["callee"]], memo).get(
                made.results.index(root))
            if inner is None or inner[1] is None:
                root = None if inner is not None else root
                break
            base = made.operands[inner[1]]
        if root is None:
            out[k] = ("an array chosen by control flow", None)
        elif is_param(root):
            what = "its parameter" if root is v else "a view of its parameter"
            out[k] = (f"{what} '{root.name_hint}'", fn.params.index(root))
    memo[fn.name] = out
    return out


# What NumPy makes as a view of its operand's memory (a slice, a transpose, a reshape), which the
# IR takes for a value: returned from a helper, it would let the caller's writes reach it.
_NUMPY_VIEWS = ("view", ARR + "slice", ARR + "transpose", ARR + "reshape")
