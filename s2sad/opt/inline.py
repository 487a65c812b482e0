"""Inlining of small loop-free user functions.

What: replaces a ``call`` by a copy of the callee's body, with the callee's
parameters mapped to the call's operands and the call's results replaced by
the operands of the callee's ``return``. The callee stays in the module (the
pipeline removes functions nothing calls any more).

Which calls (the heuristic): a callee is inlined when it holds no loop and at
most ``MAX_INLINE_OPS`` ops, counted recursively through ``if`` regions
(terminators and comments not counted).

* Small loop-free helpers (``softplus``, ``sq``, a clamp) cost a call and, in
  the gradient, a whole ``grad_<helper>`` function that re-runs the helper's
  forward sweep; inlined, their arithmetic is differentiated in place, CSE and
  LICM see through them, and no re-run is needed.
* A function with a loop (``mag``) stays a call: its gradient is best kept as
  its own ``grad_<name>``, which LICM can hoist as a whole out of the caller's
  loop (inlining ``mag`` into ``norm``'s loop would leave a loop nest that
  needs the same hoisting, with a far less readable gradient), and the
  loop would be copied into every caller.
* Recursive functions (rejected by the front ends anyway) are never inlined.

Callees are processed bottom-up (every callee before its callers), so a
function's size is measured after its own small callees were inlined into it:
nested helpers collapse from the leaves up while the total stays small.

The copies keep the callee's source locations, so the comments the emitters
write point at the callee's lines, where the code comes from, and its name
hints. A call result the caller named (``y = softplus(x)``) gives its name to
the copied value that replaces it when that value is unnamed or named by the
callee: at the use site the caller's name is the one a reader knows. An unnamed
sub-array argument (a ``view``: C's ``&x[3 * i]``) takes the callee's parameter
name, the one the copied code reads it by.

Semantics are exact: arrays are references, so a callee's stores through an
array parameter become stores into the caller's array, and every op runs in
the same order as in the call. Follows the classic procedure integration of
Muchnick, *Advanced Compiler Design and Implementation*, ch. 15.2 (bottom-up
over the call graph, size-bounded).

Pre: verified IR. Post: verified IR with the same results and effects.
"""

from __future__ import annotations

from typing import Callable

from ..analysis.effects import PassContext
from ..ssa.attrs import WHOLE_REDUCED, mark_whole_reduced
from ..ssa.ir import Block, Builder, Function, Module, Op, Value
from ..ssa.clone import clone_op
from ..ssa.callgraph import callees, module_callees_first, reachable

# Ops (recursively, without terminators and comments) a callee may have to be inlined.
MAX_INLINE_OPS = 40


def op_count(fn_or_block) -> int:
    """Ops in a function or block, counted recursively; terminators and comments excluded."""
    return sum(1 for op in fn_or_block.walk() if op.name not in ("yield", "condition", "return", "comment"))


def contains_loop(fn: Function) -> bool:
    return any(op.name in ("for", "while") for op in fn.walk())


def should_inline(callee: Function) -> bool:
    """The size heuristic of the module docstring (recursion is checked by the caller)."""
    return not contains_loop(callee) and op_count(callee) <= MAX_INLINE_OPS


def inline_call(call: Op, callee: Function) -> list[Op]:
    """A copy of ``callee``'s body in place of ``call``: its ops, to be put where ``call`` is
    (``inline_function``), and ``call`` erased but for its place in its block."""
    mapping: dict[Value, Value] = dict(zip(callee.params, call.operands))
    for param, arg in mapping.items():
        _name_sub_array(arg, param)
    copy = Block()
    b = Builder(copy, call.loc)
    copied: set[Value] = set()
    for op in callee.body.ops[:-1]:
        new = clone_op(op, b, mapping)
        copied.update(new.results)
    returned = [mapping[v] for v in callee.body.terminator.operands]
    named: set[Value] = set()
    for r, v in zip(call.results, returned):
        # The caller's name for the result, when the value is the copy's own and named once; a
        # name made for the call (``arr_max_value``) yields to the one the callee's code gives
        # its result (``mx``).
        made = r.name_hint.startswith(f"{callee.name}_") and bool(v.name_hint)
        if r.name_hint and v in copied and v not in named and not made:
            v.name_hint = r.name_hint
            named.add(v)
        r.replace_all_uses_with(v)
    call._detach()
    return copy.ops


def _name_sub_array(arg: Value, param: Value) -> None:
    """An unnamed sub-array argument (``norm3(&x[3 * i])``) takes the name the callee gives it.

    Inlined, the callee's ``v[0]`` still reads ``v[0]`` (and its adjoint ``d_v[0]``)
    rather than a temporary's. Only views: another unnamed argument is an
    expression the caller wrote (``x[i]``), which reads best where it is used.
    """
    op = arg.defining_op
    if not arg.name_hint and param.name_hint and op is not None and op.name == "view":
        arg.name_hint = param.name_hint


def inline_function(fn: Function, module: Module,
                    accept: Callable[[Op, Function], bool] = lambda call, callee: should_inline(callee)) -> None:
    """Inline into ``fn`` every call to a callee ``accept`` takes (by default, the size
    heuristic's; recursive callees never). Each block's list of ops
    is made again once, with the copies in place of the calls: put in one by one, thousands of
    calls inlined into one long function searched and moved the list for each (quadratic)."""
    copies: dict[Op, list[Op]] = {}
    for op in list(fn.walk()):
        if op.name != "call":
            continue
        callee = module.functions.get(op.attrs["callee"])
        if callee is None or callee is fn or not accept(op, callee):
            continue
        if callee.name in reachable(module, callees(callee)):
            continue  # recursive
        for name in callee.attrs.get(WHOLE_REDUCED, ()):  # np.sum(t) of a parameter: of the argument now
            mark_whole_reduced(fn, op.operands[callee.param_names.index(name)])
        copies[op] = inline_call(op, callee)
    for block in {id(call.parent): call.parent for call in copies}.values():
        ops: list[Op] = []
        for op in block.ops:
            if op in copies:
                op.parent = None
                for new in copies[op]:
                    new.parent = block
                ops += copies[op]
            else:
                ops.append(op)
        block.ops = ops


def run(module: Module, ctx: PassContext) -> None:
    """Inline small loop-free functions into their callers, bottom-up over the call graph."""
    for fn in module_callees_first(module):
        inline_function(fn, module)
