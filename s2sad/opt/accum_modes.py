"""Stamp each accumulation with how the output adds it, and each parallel loop with what keeps it serial.

Reverse mode turns reads into additions (``d_x[i] += g``): where the primal's threads or
iterations ran at once, their additions may meet at one element. Which may is decided here,
once, from the IR (``analysis/accumulation.py``), and written on the IR, where every emitter
reads it and none decides it again (``ssa.attrs.ACCUMULATE``):

* ``accum-modes`` (every target): in an OpenMP loop, an accumulation (an ``accum`` op, or the
  store of the user's own ``x[k] += g``) that another iteration of it, or of an OpenMP loop around
  it, may meet is ``atomic`` (C prints ``#pragma omp atomic``), one they cannot meet ``private``;
  a ``prange`` loop that Numba cannot run in parallel (Numba has no atomic add on the CPU) gets
  the reason (``ssa.attrs.SERIAL``), which the Python output prints above the serial loop;
* ``accum-modes-gpu`` (CUDA output): each accumulation of a gradient into a shadow is
  ``private``, ``block`` (a register per thread, one atomic per block), ``warp`` or ``atomic``
  (``analysis.accumulation.classify``), and a kernel's gradient says how it adds the scalar
  adjoints it returns (on the function). ``--all-atomic`` makes them all ``atomic``.

Run last in the targets' pipelines (``opt.passes.TARGET_PIPELINES``): no pass after it moves an
accumulation out of the loop or function its mode was decided for.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.accumulation import (ATOMIC, PRIVATE, accumulation, classify, private_accumulations,
                                     shared_call_accumulations)
from ..analysis.effects import PassContext
from ..ssa.attrs import ACCUMULATE, SERIAL, is_gradient
from ..ssa.ir import Module, Op


def run(module: Module, ctx: PassContext) -> None:
    for fn in module.functions.values():
        for loop in fn.walk():
            if loop.name != "for":
                continue
            if loop.attrs.get("parallel") == "omp":
                _stamp_shared(loop)
            elif loop.attrs.get("parallel") == "prange":
                why = _prange_blocker(loop, module)
                if why is not None:
                    loop.attrs[SERIAL] = why


def run_gpu(module: Module, ctx: PassContext) -> None:
    for fn in module.functions.values():
        if not is_gradient(fn):
            continue
        kernel = fn.name == ctx.entry and fn.attrs.get("cuda") == "global"
        plan = classify(fn, kernel, ctx.all_atomic, module)
        for op, mode in plan.modes.items():
            op.attrs[ACCUMULATE] = mode
        fn.attrs[ACCUMULATE] = plan.returned


def _stamp_shared(loop: Op) -> None:
    """The accumulations of the OpenMP ``loop`` that other iterations may meet: ``atomic``; the
    others ``private``, unless an OpenMP loop around it made them ``atomic`` already (nested
    parallel loops: an element of the inner iteration's own, ``d_v[j]``, is still met by the other
    outer iterations, running at once)."""
    private = private_accumulations(loop)
    for op in loop.walk():
        if op.name in ("accum", "store") and accumulation(op) is not None and op.attrs.get(ACCUMULATE) != ATOMIC:
            op.attrs[ACCUMULATE] = PRIVATE if op in private else ATOMIC


def _prange_blocker(op: Op, module: Module) -> Optional[str]:
    """Why the iterations of a ``prange`` loop (or of its adjoint) cannot run in parallel in
    Numba, or None. Numba has no atomic add on the CPU, so every accumulation must be the
    iteration's own, in the loop and in the gradients it calls; its reductions are the
    carried sums; a tape is a serial stack."""
    if any(inner.name in ("tape.push", "tape.pop") for inner in op.walk()):
        return "the iterations need a tape, whose order is the serial order"
    private = private_accumulations(op)
    if any(accumulation(inner) is not None and inner not in private for inner in op.walk()):
        return "iterations may add to the same element (numba.prange has no atomic add)"
    shared = shared_call_accumulations(op, module)
    if shared:
        callee = shared[0][0].attrs["callee"]
        names = ", ".join(dict.fromkeys(a.name_hint or "an array" for c, a in shared if c.attrs["callee"] == callee))
        return f"{callee} may add to {names} where other iterations add"
    body = op.regions[0]
    for a, y in zip(body.args[1:], body.terminator.operands):
        if y is not a and any(use.name not in ("add", "yield") for use, _ in a.uses):
            return f"the loop carries '{a.name_hint or 'a value'}', which is not a sum"
    return None
