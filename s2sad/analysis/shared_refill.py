"""Shared tiles that the reverse sweep fills again instead of taping what each thread read of them.

A CUDA kernel's tiled loop (``for t: As[ty][tx] = A[...]; __syncthreads(); ... As[ty][k] ...;
__syncthreads();``) reads, in each iteration, elements of a ``__shared__`` array that other
threads stored in that same iteration. Taping each thread's reads costs a cache of trips x reads
values per thread (tiled_matmul at n = 1024: 16 KiB a thread, 59 GB of DRAM traffic on an H200
where the primal moves 18 MB). The reverse sweep can instead run the iteration's fill again at
the start of each reversed iteration, then a barrier: the tile holds what the forward
iteration's reads saw, and they are read again like loads of memory nobody writes
(``adjoint/availability``). The refill is the forward's own stores, so it makes no assumption on
the block's shape (``blockDim == TILE``): whatever elements the forward wrote, it writes again.

``refilled_tiles(module, fn)`` gives, per top-level loop of a kernel, the stores to run
again, in order, and the arrays they fill. A ``__shared__`` array is refilled by a loop when:

* the loop is a ``for`` at the kernel's top level (all threads run it, for the same trips, as
  its barriers require);
* every write of the array in the loop is a ``store`` at the top level of the loop's body,
  before its first barrier, at an index the loop does not change: each iteration writes the
  same elements, and the others keep the values they had before the loop;
* every other use of the array in the loop is a load after that barrier (it reads this
  iteration's fill), and nothing after the loop writes the array (the reverse sweep reaches the
  loop with the array as the loop left it).

Each stored value is brought to the reversed iteration as any value of the loop body is
(``adjoint/availability``): computed again where it can be (indices, the loop's counter, loads
of arrays the kernel never writes), else taped, one value per store and iteration where the
reads it replaces would tape one per read.

The fill's adjoint (``d_A[...] += d_As[...]``) is unchanged. Elsewhere, loads of shared memory are
taped as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ssa.gpu import SHARED_SPACE, SYNC
from ..ssa.ir import Function, Module, Op, Value
from .effects import known_root, written_operands


@dataclass
class Refill:
    """What the reverse sweep writes again at the start of each reversed iteration of a loop."""

    stores: list[Op] = field(default_factory=list)  # in the order of the loop body
    arrays: set[Value] = field(default_factory=set)  # the __shared__ arrays they fill


def refilled_tiles(module: Module, fn: Function) -> dict[Op, Refill]:
    """The top-level loops of the kernel ``fn`` whose __shared__ tiles the reverse sweep refills."""
    if fn.attrs.get("cuda") != "global":
        return {}
    top = fn.body.ops
    out: dict[Op, Refill] = {}
    for k, loop in enumerate(top):
        if loop.name != "for":
            continue
        later = {known_root(a) for op in top[k + 1:] for inner in op.walk()
                 for a in written_operands(module, inner)}
        refill = Refill()
        for tile in _shared_written(module, loop):
            stores = _fill(module, loop, tile) if tile not in later else None
            if stores:
                refill.stores.extend(stores)
                refill.arrays.add(tile)
        if refill.arrays:
            body = loop.regions[0].ops
            refill.stores.sort(key=body.index)
            out[loop] = refill
    return out


def _shared_written(module: Module, loop: Op) -> list[Value]:
    roots: dict[Value, None] = {}
    for op in loop.walk():
        for a in written_operands(module, op):
            r = known_root(a)
            if r.defining_op is not None and r.defining_op.attrs.get("space") == SHARED_SPACE:
                roots.setdefault(r, None)
    return list(roots)


def _fill(module: Module, loop: Op, tile: Value) -> list[Op] | None:
    """The stores that fill ``tile`` in each iteration of ``loop``, or None when a refill would
    not rebuild what the iteration's loads read (see the module docstring)."""
    body = loop.regions[0]
    barrier = next((k for k, op in enumerate(body.ops) if op.name == SYNC), None)
    if barrier is None:
        return None
    stores: list[Op] = []
    for op in loop.walk():
        if not any(a.type.is_array and known_root(a) is tile for a in op.operands):
            continue
        if op.name == "store" and op.parent is body and op.operands[0] is tile:
            idx = op.operands[1:-1]
            if body.ops.index(op) > barrier or any(_inside(i, loop) for i in idx):
                return None
            stores.append(op)
        elif op.name == "load" and op.operands[0] is tile and _top_index(op, body) > barrier:
            continue
        else:
            return None  # a view, a call, an accumulation, a load before the fill...
    return stores


def _inside(v: Value, loop: Op) -> bool:
    """Whether ``v`` is defined in ``loop``'s regions (its counter included)."""
    block = v.owner if v.is_block_arg else v.owner.parent
    while block is not None:
        if block.parent_op is loop:
            return True
        block = block.parent_op.parent if block.parent_op is not None else None
    return False


def _top_index(op: Op, body) -> int:
    """The position in ``body`` of the statement that holds ``op``."""
    while op.parent is not body:
        op = op.parent.parent_op
    return body.ops.index(op)
