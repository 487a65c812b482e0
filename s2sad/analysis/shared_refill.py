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

``refilled_tiles(module, fn, readonly)`` gives, per top-level loop of a kernel, the stores to run
again, in order, and the arrays they fill. A ``__shared__`` array is refilled by a loop when:

* the loop is a ``for`` at the kernel's top level (all threads run it, for the same trips, as
  its barriers require);
* every write of the array in the loop is a ``store`` at the top level of the loop's body, or
  in an ``if`` there whose branches both store the same elements (``if (j < n) As[ty][tx] =
  A[...]; else As[ty][tx] = 0.0;``) or whose condition the loop does not change (``if
  (threadIdx.x < R)``, a halo's load), run again whole, before the body's first barrier, at an
  index the loop does not change: each iteration writes the same elements, and the others keep
  the values they had before the loop;
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
from ..ssa.opdefs import is_pure
from ..ssa.structured import made_inside
from .effects import known_root, written_operands


@dataclass
class Refill:
    """What the reverse sweep writes again at the start of each reversed iteration of a loop."""

    stores: list[Op] = field(default_factory=list)  # stores and guarded fills, in the loop body's order
    arrays: set[Value] = field(default_factory=set)  # the __shared__ arrays they fill


def refilled_tiles(module: Module, fn: Function, readonly: set[Value]) -> dict[Op, Refill]:
    """The top-level loops of the kernel ``fn`` whose __shared__ tiles the reverse sweep refills
    (``readonly``: the arrays the kernel never writes, which a guarded fill may load)."""
    if fn.attrs.get("cuda") != "global":
        return {}
    top = fn.body.ops
    out: dict[Op, Refill] = {}
    for k, loop in enumerate(top):
        if loop.name != "for":
            continue
        later = {known_root(a) for op in top[k + 1:] for inner in op.walk()
                 for a in written_operands(module, inner)}
        fills = {tile: _fill(module, loop, tile, readonly) for tile in _shared_written(module, loop)
                 if tile not in later}
        fills = {tile: ops for tile, ops in fills.items() if ops}
        # A guarded fill runs again whole: every tile it stores into must be one refilled.
        while True:
            kept = set(fills)
            dropped = {tile for tile, ops in fills.items()
                       if any(known_root(s.operands[0]) not in kept for op in ops if op.name == "if"
                              for s in op.walk() if s.name == "store")}
            if not dropped:
                break
            fills = {tile: ops for tile, ops in fills.items() if tile not in dropped}
        if fills:
            body = loop.regions[0].ops
            ops = {op: None for tile_ops in fills.values() for op in tile_ops}
            out[loop] = Refill(sorted(ops, key=body.index), set(fills))
    return out


def _shared_written(module: Module, loop: Op) -> list[Value]:
    roots: dict[Value, None] = {}
    for op in loop.walk():
        for a in written_operands(module, op):
            r = known_root(a)
            if is_shared(r):
                roots.setdefault(r, None)
    return list(roots)


def _fill(module: Module, loop: Op, tile: Value, readonly: set[Value]) -> list[Op] | None:
    """The statements that fill ``tile`` in each iteration of ``loop`` (stores, and ``if``s whose
    branches both store the same elements), or None when a refill would not rebuild what the
    iteration's loads read (see the module docstring)."""
    body = loop.regions[0]
    barrier = next((k for k, op in enumerate(body.ops) if op.name == SYNC), None)
    if barrier is None:
        return None
    fills: dict[Op, None] = {}
    for op in loop.walk():
        if not any(a.type.is_array and known_root(a) is tile for a in op.operands):
            continue
        if op.name == "store" and op.operands[0] is tile:
            statement = op if op.parent is body else _guarded_fill(op, loop, tile, readonly)
            if statement is None or body.ops.index(statement) > barrier \
                    or any(made_inside(i, loop) for i in op.operands[1:-1]):
                return None
            fills[statement] = None
        elif op.name == "load" and op.operands[0] is tile and _top_index(op, body) > barrier:
            continue
        else:
            return None  # a view, a call, an accumulation, a load before the fill...
    return list(fills)


def _guarded_fill(store: Op, loop: Op, tile: Value, readonly: set[Value]) -> Op | None:
    """The ``if`` of the loop body that holds ``store`` when it is a guarded fill, else None: every
    iteration writes the same elements of ``tile``, as an unguarded fill does (the branches store
    it at the same indices, or the guard does not change in the loop: ``if (threadIdx.x < R)``),
    and it holds nothing else than arithmetic, loads of ``readonly`` arrays and stores into
    __shared__ arrays (run again whole in the reversed iteration, it changes nothing else)."""
    body = loop.regions[0]
    guard = store.parent.parent_op
    if guard is None or guard.name != "if" or guard.parent is not body:
        return None
    stored = []
    for branch in guard.regions:
        here = set()
        for op in branch.ops[:-1]:
            if op.name == "store" and is_shared(known_root(op.operands[0])):
                if op.operands[0] is tile:
                    here.add(tuple(op.operands[1:-1]))
            elif op.regions or not (is_pure(op) or (op.name == "load" and known_root(op.operands[0]) in readonly)):
                return None
        stored.append(here)
    return guard if stored[0] == stored[1] or _invariant(guard.operands[0], loop) else None


def _invariant(v: Value, loop: Op) -> bool:
    """Whether ``v`` is the same in every iteration of ``loop``: made before it, or arithmetic of
    such values (``threadIdx.x < R``, computed in the body)."""
    if not made_inside(v, loop):
        return True
    op = v.defining_op
    return op is not None and not op.regions and is_pure(op) and all(_invariant(o, loop) for o in op.operands)


def is_shared(root: Value) -> bool:
    """Whether the array root ``root`` is a ``__shared__`` array (an alloc in shared space)."""
    return root.defining_op is not None and root.defining_op.attrs.get("space") == SHARED_SPACE


def _top_index(op: Op, body) -> int:
    """The position in ``body`` of the statement that holds ``op``."""
    while op.parent is not body:
        op = op.parent.parent_op
    return body.ops.index(op)
