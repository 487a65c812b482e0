"""Inlining of functions with loops that a loop of their caller calls, where the gradient would
re-run them.

What: after LICM, a call still inside a loop of its caller to a function that holds loops, has
at most ``MAX_OPS`` ops and is not recursive, is replaced by a copy of the callee's body
(``inline.inline_function``), when the callee's gradient, called in the caller's reversed loop,
would re-run work of its own:

* a callee that computes values its reverse sweep needs (a product, quotient or power of
  values it computed, a transcendental of anything not constant: ``half_sq_mahalanobis``'s
  ``v * v``, an LSTM cell's ``sigmoid(gates[j])``, a rotation's ``sqrt`` and ``cos``): called
  in a loop, its gradient re-runs its forward sweep once per reversed iteration to get them
  back (joint mode), one more primal's work for every level of calls; inlined, the caller's
  forward sweep keeps them as it keeps its own values, the effect of the split mode of
  Griewank & Walther, *Evaluating Derivatives*, ch. 12, without a second function per callee;
* a callee that writes no array (``sqnorm(d, qx)``): its gradient needs its array arguments as
  the call saw them, made again in every reversed iteration by re-running the code that wrote
  them; inlined, the few values its reverse reads are kept instead.

A callee that writes arrays as a linear map of what it reads (``subtract``, ``q_times``) stays
a call: its gradient re-runs nothing, and inlined, its reads would be kept where they are now
read again from the arguments. So does a callee called outside loops (LICM hoisted ``mag`` out
of ``norm``'s loop), whose gradient runs once, and a callee with a loop annotated with a
checkpointing schedule, which applies to that loop in that function. One round: the calls
a copy brings into the loop (bundle adjustment's rotation, called by ``project`` outside any
loop of ``project``) stay calls; inlined as well, the rotation's values filled some thirty tapes
per observation and the gradient was slower (3.3x its primal, against 3.0x). The heuristic only
chooses what is inlined: inlining is exact whatever it chooses (``inline.py``).

Measured (bench/c_suite.py, 2026-12-06, one run, gradient / primal): GMM 3.25 -> 2.14, GMM as
written 3.53 -> 2.79, BA 3.22 -> 3.03, LSTM 2.78 -> 2.27.

Pre: verified IR. Post: verified IR with the same results and effects.
"""

from __future__ import annotations

from ..analysis.effects import PassContext, array_root, written_params
from ..ssa.attrs import loop_schedule
from ..ssa.build import const_value
from ..ssa.callgraph import module_callees_first
from ..ssa.ir import Function, Module, Op, Value
from ..ssa.structured import in_loop
from .inline import contains_loop, inline_function, op_count

# Ops (recursively, without terminators and comments) a callee with loops may have to be inlined.
MAX_OPS = 150

# Float ops whose adjoint reads their operands: a product, a quotient, a power.
_NONLINEAR = ("mul", "div", "pow")
# Float ops an operand may be made of and still be read again where it is needed at the cost
# of a load: sums and differences of what the callee reads.
_AT_HAND = ("add", "sub", "neg", "cast")


def reruns_in_gradient(module: Module, callee: Function) -> bool:
    """Whether ``callee``'s gradient, called in a reversed loop, re-runs work of its own (the
    two cases of the module docstring)."""
    written = {callee.params[i] for i in written_params(module, callee)}
    if not written:
        return True
    return any(_keeps(op, callee, written) for op in callee.walk())


def _keeps(op: Op, callee: Function, written: set[Value]) -> bool:
    """Whether the reverse sweep needs a value ``op`` is made of that the callee computed."""
    if len(op.results) != 1 or not op.result.type.is_float:
        return False
    varying = [v for v in op.operands if const_value(v) is None]
    if op.name.startswith("math."):
        return bool(varying)
    if op.name not in _NONLINEAR:
        return False
    if (op.name == "mul" and len(varying) < 2) or (op.name == "div" and const_value(op.operands[1]) is not None):
        return False  # a constant multiple, a quotient by a constant: linear
    return not all(_at_hand(v, callee, written) for v in varying)


def _at_hand(v: Value, callee: Function, written: set[Value], depth: int = 0) -> bool:
    """Whether ``v`` is read again where needed at little cost: a constant, a parameter, an
    integer, an element of an array the callee never writes, or a sum of such values."""
    if not v.type.is_float:
        return True
    if v.is_block_arg:
        return v.owner is callee.body
    op = v.defining_op
    if op.name == "const":
        return True
    if op.name == "load":
        root = array_root(op.operands[0])
        return root is not None and root in callee.params and root not in written
    if op.name in _AT_HAND and depth < 8:
        return all(_at_hand(o, callee, written, depth + 1) for o in op.operands)
    return False


def _checkpointed(callee: Function) -> bool:
    return any(op.name in ("for", "while") and loop_schedule(op) is not None for op in callee.walk())


def run(module: Module, ctx: PassContext) -> None:
    """Inline, bottom-up over the call graph, the calls in loops the module docstring names."""
    def accept(call: Op, callee: Function) -> bool:
        return (in_loop(call) and contains_loop(callee) and op_count(callee) <= MAX_OPS
                and not _checkpointed(callee) and reruns_in_gradient(module, callee))

    for fn in module_callees_first(module):
        inline_function(fn, module, accept)
