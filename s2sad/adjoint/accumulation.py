"""Which adjoint accumulations of a CUDA gradient may race, and how to make them safe.

Reverse mode turns reads into accumulations: a kernel where every thread reads
``x[i]`` gets ``d_x[i] += g`` in its gradient, and one where every thread reads
``a[0]`` gets ``d_a[0] += g`` from every thread at once, a write race that the
primal did not have. This analysis looks at each accumulation into a shadow
parameter of a kernel's gradient (``store(d, idx, add(load(d, idx), g))``) and
classifies it by the addresses all the threads touch in that shadow:

* ``PRIVATE``: every access to the shadow, in the whole kernel, uses one index
  expression that is an injective function of the global thread id (``i`` with
  ``i = blockIdx.x * blockDim.x + threadIdx.x``, plus or times a thread-uniform
  amount): no two threads meet at one element, a plain ``+=`` is race-free;
* ``BLOCK``: every access is an accumulation at one thread-uniform index (a
  constant or an integer parameter): all threads add to the same element, so
  each thread sums in a register and the block adds its total with one atomic,
  after a block-wide reduction (warp shuffles, then shared memory);
* ``ATOMIC``: anything else (a stencil's ``d_x[i - 1]`` and ``d_x[i + 1]`` meet
  the neighbour's ``d_x[i]``; a gather's ``d_x[idx[i]]`` may repeat): ``atomicAdd``.

The shadow of a ``__shared__`` array is shared by the threads of a block only:
its accumulations are ``PRIVATE`` when every access uses one index injective in
the thread's index in the block (``threadIdx.x``, plus a uniform amount), else
``ATOMIC`` (``atomicAdd`` on shared memory).

A shadow passed to a call is ``ATOMIC`` everywhere (the callee's accesses are
not seen here), and inside ``__device__`` functions every shadow accumulation
is ``ATOMIC``: a device function cannot know which thread calls it with what.
Accumulations into local arrays (per-thread memory) are not classified.

Index expressions are compared structurally (the forward sweep's ``i`` and the
reverse sweep's recomputed ``i`` are different SSA values with one meaning).
``all_atomic`` classifies every accumulation ``ATOMIC``: the baseline that
``bench/gpu.py`` measures classification against.

Parallel loops (OpenMP's ``parallel for``, Numba's ``prange``) get the same
analysis with the iteration in place of the thread: ``private_accumulations``
are the accumulations of a loop that no other iteration can meet.

This is the race analysis of Enzyme's GPU reverse mode (Moses et al., "Reverse-
mode automatic differentiation and optimization of GPU kernels via Enzyme",
SC'21), reduced to the index forms numerical kernels use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..ssa.gpu import BUILTINS as GPU_BUILTINS
from ..ssa.gpu import SHARED_SPACE
from ..ssa.ir import Function, Op, Value
from ..ssa.ops import view_base

PRIVATE = "private"
BLOCK = "block"
ATOMIC = "atomic"

_UNIFORM_BUILTINS = ("gpu.block_dim", "gpu.grid_dim")


@dataclass
class AccumulationPlan:
    """The mode of each accumulation store, and of the scalar adjoints a kernel returns."""

    modes: dict[Op, str] = field(default_factory=dict)
    returned: str = PRIVATE  # how ``*d_a += d_a_local`` is added at the end

    def mode(self, op: Op) -> Optional[str]:
        return self.modes.get(op)


def shadow_params(fn: Function) -> list[Value]:
    """The gradient's shadow parameters: ``d_x`` right after ``x``, of the same type."""
    ps = fn.params
    return [q for p, q in zip(ps, ps[1:]) if q.type.is_array and q.type == p.type
            and q.name_hint == f"d_{p.name_hint}"]


def shared_shadows(fn: Function) -> list[Value]:
    """The shadows of ``__shared__`` arrays: shared allocs that start zeroed (the front end
    gives user arrays no initializer, the reverse transform zeroes every shadow)."""
    return [op.result for op in fn.walk() if op.name == "alloc" and op.attrs.get("space") == SHARED_SPACE
            and op.attrs.get("fill") == "zeros"]


def accumulation(op: Op) -> Optional[Value]:
    """For ``store(d, idx, add(load(d, idx), g))``: ``g``; else None."""
    if op.name != "store":
        return None
    arr, *idx, value = op.operands
    add = value.defining_op
    if add is None or add.name != "add":
        return None
    for k in (0, 1):
        load = add.operands[k].defining_op
        if (load is not None and load.name == "load" and load.operands[0] is arr
                and [key(v) for v in load.operands[1:]] == [key(v) for v in idx]):
            return add.operands[1 - k]
    return None


def classify(fn: Function, kernel: bool, all_atomic: bool = False) -> AccumulationPlan:
    """How each accumulation of ``fn`` (a gradient; ``kernel``: a ``__global__`` one) is added."""
    plan = AccumulationPlan(returned=ATOMIC if all_atomic else BLOCK if kernel else PRIVATE)
    shadows = set(shadow_params(fn))
    shared = set(shared_shadows(fn))
    accesses: dict[Value, list[Op]] = {s: [] for s in shadows | shared}
    passed: set[Value] = set()
    for op in fn.walk():
        if op.name in ("load", "store") and view_base(op.operands[0]) in accesses:
            accesses[view_base(op.operands[0])].append(op)
        elif op.name == "call":
            passed.update(view_base(a) for a in op.operands if a.type.is_array)
    for shadow, ops in accesses.items():
        stores = [op for op in ops if accumulation(op) is not None]
        mode = ATOMIC
        if all_atomic or shadow in passed or any(op.operands[0] is not shadow for op in ops):
            mode = ATOMIC
        elif shadow in shared:
            # Threads of one block share it; the barriers the reverse sweep mirrors order the
            # phases, but within a phase only an index of the thread's own is race-free.
            mode = PRIVATE if _same_index(ops) and all(_private_in_block(v) for v in _index(ops[0])) else ATOMIC
        elif not kernel:
            mode = ATOMIC
        elif _same_index(ops) and all(_private(v) for v in ops[0].operands[1:2]) and ops[0].operands[0].type.rank == 1:
            mode = PRIVATE
        elif len(stores) * 2 == len(ops) and _same_index(ops) and all(_uniform_at_top(v, fn) for v in _index(ops[0])):
            mode = BLOCK  # each accumulation is one load and one store: nothing else touches it
        for op in stores:
            plan.modes[op] = mode
    return plan


def _index(op: Op) -> list[Value]:
    return op.operands[1:] if op.name == "load" else op.operands[1:-1]


def _same_index(ops: list[Op]) -> bool:
    keys = {tuple(key(v) for v in _index(op)) for op in ops}
    return len(keys) == 1


def key(v: Value) -> object:
    """A structural key: equal keys, equal values in every thread (pure ops only)."""
    op = v.defining_op
    if op is None or op.regions or op.name not in _KEYED:
        return ("value", id(v))
    if op.name == "const":
        return ("const", str(v.type), op.attrs["value"])
    operands = [key(o) for o in op.operands]
    if op.name in ("add", "mul"):
        operands.sort(key=repr)
    return (op.name, op.attrs.get("axis"), str(v.type), tuple(operands))


_KEYED = {"const", "add", "sub", "mul", "cast", "neg", *GPU_BUILTINS}


def _uniform(v: Value) -> bool:
    """The same in every thread of the launch: constants, scalar parameters, blockDim, gridDim."""
    op = v.defining_op
    if op is None:
        return v.is_block_arg and v.owner.parent_op is None and not v.type.is_array
    if op.name in ("const", *_UNIFORM_BUILTINS):
        return True
    return op.name in ("add", "sub", "mul", "neg", "cast") and all(_uniform(o) for o in op.operands)


def _uniform_at_top(v: Value, fn: Function) -> bool:
    """Uniform, and defined where the end of the kernel still sees it (the flush is there)."""
    op = v.defining_op
    return _uniform(v) and (op is None or op.parent is fn.body or op.name == "const")


def _global_id_x(v: Value) -> bool:
    """``blockIdx.x * blockDim.x + threadIdx.x``, in any order of the operands."""
    op = v.defining_op
    if op is None or op.name != "add":
        return False
    for a, b in (op.operands, reversed(op.operands)):
        if _builtin(a, "gpu.thread_idx"):
            m = b.defining_op
            if m is not None and m.name == "mul":
                names = sorted(o.defining_op.name for o in m.operands if o.defining_op is not None
                               and o.defining_op.attrs.get("axis") == "x")
                if names == ["gpu.block_dim", "gpu.block_idx"]:
                    return True
    return False


def _builtin(v: Value, name: str) -> bool:
    op = v.defining_op
    return op is not None and op.name == name and op.attrs.get("axis") == "x"


def _private_in_block(v: Value) -> bool:
    """An injective function of the thread's index in its block: threadIdx.x (+ or - uniform),
    or of the global thread id (injective on a block as well)."""
    op = v.defining_op
    if _builtin(v, "gpu.thread_idx") or _private(v):
        return True
    if op is None:
        return False
    if op.name == "cast" and op.operands[0].type.is_int:
        return _private_in_block(op.operands[0])
    if op.name in ("add", "sub"):
        a, b = op.operands
        return (_private_in_block(a) and _uniform(b)) or (op.name == "add" and _uniform(a) and _private_in_block(b))
    return False


def _private(v: Value) -> bool:
    """An injective function of the global thread id: gid, gid + u, u + gid, gid - u, u - gid, -gid,
    gid * c (c != 0)."""
    op = v.defining_op
    if _global_id_x(v):
        return True
    if op is None:
        return False
    if op.name == "cast" and op.operands[0].type.is_int:
        return _private(op.operands[0])
    if op.name == "add":
        a, b = op.operands
        return (_private(a) and _uniform(b)) or (_uniform(a) and _private(b))
    if op.name == "sub":
        a, b = op.operands
        return (_private(a) and _uniform(b)) or (_uniform(a) and _private(b))
    if op.name == "neg":
        return _private(op.operands[0])
    if op.name == "mul":
        for a, b in (op.operands, reversed(op.operands)):
            c = b.defining_op
            if _private(a) and c is not None and c.name == "const" and c.attrs["value"] != 0:
                return True
    return False


# -- loops whose iterations run in parallel (OpenMP, numba.prange) ----------------------------


def private_accumulations(loop: Op) -> set[Op]:
    """The accumulation stores in ``loop`` that no other iteration can meet: every access to
    that array in the loop uses one index, and that index is ``iteration_private``."""
    by_root: dict[Value, list[Op]] = {}
    for op in loop.walk():
        if op.name in ("load", "store"):
            by_root.setdefault(view_base(op.operands[0]), []).append(op)
    out: set[Op] = set()
    for ops in by_root.values():
        indices = [op.operands[1:] if op.name == "load" else op.operands[1:-1] for op in ops]
        keys = {tuple(key(v) for v in idx) for idx in indices}
        if (len(keys) == 1 and len(indices[0]) == 1 and iteration_private(indices[0][0], loop)
                and all(op.operands[0] is ops[0].operands[0] for op in ops)):
            out.update(op for op in ops if op.name == "store" and accumulation(op) is not None)
    return out


def iteration_private(index: Value, loop: Op) -> bool:
    """Whether ``index`` names a different element in every iteration of ``loop``."""
    iv = loop.regions[0].args[0]
    op = index.defining_op
    if index is iv:
        return True
    if op is None:
        return False
    if op.name == "cast" and op.operands[0].type.is_int:
        return iteration_private(op.operands[0], loop)
    if op.name in ("add", "sub"):
        a, b = op.operands
        return (iteration_private(a, loop) and _invariant(b, loop)) or (
            op.name == "add" and _invariant(a, loop) and iteration_private(b, loop))
    if op.name == "mul":
        for a, b in (op.operands, reversed(op.operands)):
            c = b.defining_op
            if iteration_private(a, loop) and c is not None and c.name == "const" and c.attrs["value"] != 0:
                return True
    return False


def _invariant(v: Value, loop: Op) -> bool:
    """A constant, or defined outside ``loop`` (the same in every iteration)."""
    if v.defining_op is not None and v.defining_op.name == "const":
        return True
    owner = v.defining_op.parent if v.defining_op is not None else v.owner
    while owner is not None:
        parent = owner.parent_op
        if parent is loop:
            return False
        owner = parent.parent if parent is not None else None
    return True
