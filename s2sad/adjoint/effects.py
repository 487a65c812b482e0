"""Memory effects: which arrays a function writes, and where each array value points.

Arrays are references; every array value must trace back to a *root*: a
parameter, an ``alloc`` or ``copy``, or the fresh result of a whole-array op
(``arr.``), through any ``view`` of it (a store through a view
of ``x`` writes ``x``). Activity analysis, caching and the gradient signature
all reason per root. ``written_params`` is interprocedural (it follows calls), so
a parameter written only inside a callee still counts as written by the caller,
as the contract requires for the gradient's shadows.
"""

from __future__ import annotations

from ..diagnostics import DiagnosticError, error
from ..ssa.ir import Function, Module, Op, Value
from ..ssa.array_ops import ACCUMULATIONS, makes_fresh_array
from ..ssa.ops import view_base


def array_root(v: Value) -> Value:
    """The parameter or ``alloc`` result an array value refers to (a view: its base's)."""
    v = view_base(v)
    if v.is_block_arg and v.owner.parent_op is None:
        return v  # a function parameter
    op = v.defining_op
    if op is not None and (op.name in ("alloc", "copy") or makes_fresh_array(op)):
        return v  # fresh memory: an ``arr.`` result is a new array, like a copy
    loc = op.loc if op is not None else None
    raise error(
        "this array's identity depends on control flow (an array chosen by a branch or "
        "carried by a loop), which is not supported yet",
        loc,
        hint="index one array explicitly instead of choosing between arrays",
    )


def _written_roots_in(fn: Function, module: Module, memo: dict[str, set[int]]) -> set[Value]:
    roots: set[Value] = set()
    for op in fn.walk():
        if op.name == "store":
            roots.add(_writable_root(op.operands[0], op, module))
        elif op.name in ACCUMULATIONS:  # an adjoint's d_x += ... (grad_g called by grad_f)
            roots.add(array_root(op.operands[0]))
        elif op.name == "call":
            callee = module.functions[op.attrs["callee"]]
            for i in written_params(module, callee, memo):
                roots.add(_writable_root(op.operands[i], op, module))
    return roots


def _writable_root(arr: Value, op: Op, module: Module) -> Value:
    """The root ``op`` writes; never the result of a whole-array op, whose value must stay as made."""
    root = array_root(arr)
    if makes_fresh_array(root.defining_op):
        e = error(
            "this writes into an array made by a whole-array expression, which is not supported yet",
            op.loc,
            hint="make a writable array with np.zeros(...) and fill it, or build the new values whole",
        )
        e.source_lines = module.source_lines
        raise e
    return root


def written_params(module: Module, fn: Function, memo: dict[str, set[int]] | None = None) -> set[int]:
    """Indices of ``fn``'s array parameters that it (or a callee) stores into."""
    memo = {} if memo is None else memo
    if fn.name not in memo:
        # A function that calls itself sees its own summary: grow it from nothing until its
        # self-calls add no more (they may pass a parameter in another position).
        memo[fn.name] = set()
        while True:
            roots = _written_roots_in(fn, module, memo)
            found = {i for i, p in enumerate(fn.params) if p in roots}
            if found == memo[fn.name]:
                break
            memo[fn.name] = found
    return memo[fn.name]


def record_source_writes(module: Module) -> None:
    """Record on each function of ``module`` without a record (``Function.source_writes``) the
    array parameters it writes as it is now. Run on the front end's IR, before any pass
    (``run_pipeline`` does it first): a pass may fold a write away (``if (0.1 > 0.5) y[2] = 0;``)
    or inline the callee that made it, which must not change the gradient's signature."""
    for fn in module.functions.values():
        if fn.source_writes is None:
            try:
                fn.source_writes = frozenset(written_params(module, fn))
            except DiagnosticError:
                pass  # no record: differentiating it reports the same problem, located


def source_written_params(module: Module, fn: Function) -> set[int]:
    """The array parameters the contract calls written, which get a shadow in the gradient:
    those the source writes, directly or through a callee (recorded before any pass; with no
    record, no pass has run and the IR is the source), and any the IR now writes."""
    if fn.source_writes is None:
        record_source_writes(module)
    return set(fn.source_writes or ()) | written_params(module, fn)


def written_roots(module: Module, fn: Function) -> set[Value]:
    """Every root (parameter or local ``alloc``) that ``fn`` writes."""
    return _written_roots_in(fn, module, {})


def snapshot_args(module: Module, caller: Function, op: Op, may_alias: bool = False) -> list[int]:
    """Array arguments of a call whose contents may change after it (by the callee or the caller).

    The reverse sweep re-runs the callee's gradient from the arguments as they
    were at the call, so these must be copied just before the call. With
    ``may_alias`` a write to any parameter array may change every parameter array.
    """
    written = may_be_written(caller, written_roots(module, caller), may_alias)
    return [i for i, a in enumerate(op.operands) if a.type.is_array and array_root(a) in written]


def may_be_written(fn: Function, written: set[Value], may_alias: bool) -> set[Value]:
    """The roots whose memory a write to ``written`` may change: with ``may_alias``, a write to
    one parameter array may change every parameter array (they may share memory)."""
    params = {p for p in fn.params if p.type.is_array}
    if may_alias and written & params:
        return written | params
    return written


def call_writes(module: Module, op: Op) -> bool:
    return bool(written_params(module, module.functions[op.attrs["callee"]]))
