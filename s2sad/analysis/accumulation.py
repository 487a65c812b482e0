"""Which adjoint accumulations of a CUDA gradient may race, and how to make them safe.

Reverse mode turns reads into accumulations: a kernel where every thread reads
``x[i]`` gets ``d_x[i] += g`` in its gradient, and one where every thread reads
``a[0]`` gets ``d_a[0] += g`` from every thread at once, a write race that the
primal did not have. This analysis looks at each accumulation into a shadow
parameter of a kernel's gradient (an ``accum`` op: ``d[idx] += g``) and
classifies it by the addresses all the threads touch in that shadow:

* ``PRIVATE``: every access to the shadow, in the whole kernel, has one index form
  whose address fixes the thread (``index_forms``): ``i`` with ``i = blockIdx.x *
  blockDim.x + threadIdx.x``, ``2 * i + 1``, ``row * w + col`` under ``if (col < w)``,
  ``i * m + j`` with ``j`` a loop counter in ``[0, m)``: no two threads meet at one
  element, a plain ``+=`` is race-free. Axes the kernel never reads (``threadIdx.y`` in
  a 1-D kernel) are taken to be of extent 1, as the kernel's launch must have them;
* ``BLOCK``: every access is an accumulation at one thread-uniform index (a
  constant or an integer parameter): all threads add to the same element, so
  each thread sums in a register and the block adds its total with one atomic,
  after a block-wide reduction (warp shuffles, then shared memory);
* ``WARP``: an accumulation ``BLOCK`` cannot take (not every thread of the block reaches
  it: a loop under ``if (i < n)``), at an index the same in every thread that runs it
  together (thread-uniform values and the counters of loops with such bounds: a matrix-
  vector product's ``d_x[j]``): ``warp_sum_add`` sums the lanes of a warp that arrive
  together by shuffles and adds once, and adds each value atomically where they do not;
* ``ATOMIC``: anything else (a stencil's ``d_x[i - 1]`` and ``d_x[i + 1]`` meet
  the neighbour's ``d_x[i]``; a gather's ``d_x[idx[i]]`` may repeat): ``atomicAdd``.

The shadow of a ``__shared__`` array is shared by the threads of a block only:
its accumulations are ``PRIVATE`` when every access has one index form whose address
fixes the thread's index in the block (``threadIdx.x``, plus a uniform amount), else
``ATOMIC`` (``atomicAdd`` on shared memory).

A shadow passed to a call is ``ATOMIC`` everywhere (the callee's accesses are
not seen here), and inside ``__device__`` functions every shadow accumulation
is ``ATOMIC``: a device function cannot know which thread calls it with what.
Accumulations into local arrays (per-thread memory) are not classified.

Index expressions are compared structurally (the forward sweep's ``i`` and the
reverse sweep's recomputed ``i`` are different SSA values with one meaning; a loop's
counter and its mirror's in the reverse sweep run over the same range).
``all_atomic`` classifies every accumulation ``ATOMIC``: the baseline that
``bench/gpu.py`` measures classification against.

Parallel loops (OpenMP's ``parallel for``, Numba's ``prange``) get the same
analysis with the iteration in place of the thread: ``private_accumulations``
are the accumulations of a loop that no other iteration can meet (``x[i]``,
``x[i * m + j]``, or ``x[i, j]``, with ``i`` the parallel loop's counter).

This is the race analysis of Enzyme's GPU reverse mode (Moses et al., "Reverse-
mode automatic differentiation and optimization of GPU kernels via Enzyme",
SC'21), reduced to the index forms numerical kernels use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Hashable, Optional

from ..ssa.attrs import shadows_of
from ..ssa.gpu import BUILTINS as GPU_BUILTINS
from ..ssa.gpu import SHARED_SPACE
from ..ssa.ir import Function, Module, Op, Value
from ..ssa.opdefs import is_pure
from ..ssa.ops import view_base
from .effects import written_params
from .index_forms import OWNER, Coef, IndexForms, loop_atom, loop_counter, owner_key, thread_atom

PRIVATE = "private"
BLOCK = "block"
WARP = "warp"
ATOMIC = "atomic"

_UNIFORM_BUILTINS = ("gpu.block_dim", "gpu.grid_dim")


@dataclass
class AccumulationPlan:
    """The mode of each accumulation store, and of the scalar adjoints a kernel returns."""

    modes: dict[Op, str] = field(default_factory=dict)
    returned: str = PRIVATE  # how ``*d_a += d_a_local`` is added at the end

    def mode(self, op: Op) -> Optional[str]:
        return self.modes.get(op)


def shared_shadows(fn: Function) -> list[Value]:
    """The shadows of ``__shared__`` arrays: shared allocs that start zeroed (the front end
    gives user arrays no initializer, the reverse transform zeroes every shadow)."""
    return [op.result for op in fn.walk() if op.name == "alloc" and op.attrs.get("space") == SHARED_SPACE
            and op.attrs.get("fill") == "zeros"]


def accumulation(op: Op) -> Optional[Value]:
    """What ``op`` adds into an element of memory, or None: ``g`` for an ``accum`` op (reverse
    mode's ``d[idx] += g``), and for the store of the user's own ``x[idx] += g`` in primal code,
    which stays ``store(x, idx, add(load(x, idx), g))``: its races in a parallel loop (OpenMP,
    ``prange``) are decided as an adjoint's are (``private_accumulations``), and C adds it
    atomically where other iterations may meet it. Only primal code is matched as a pattern;
    no pass makes that pattern of an adjoint (``build.accum``)."""
    if op.name == "accum":
        return op.operands[-1]
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


def classify(fn: Function, kernel: bool, all_atomic: bool = False,
             module: Optional[Module] = None) -> AccumulationPlan:
    """How each accumulation of ``fn`` (a gradient; ``kernel``: a ``__global__`` one) is added.
    ``module`` holds the device functions ``fn`` calls: the thread axes they read count as used."""
    plan = AccumulationPlan(returned=ATOMIC if all_atomic else BLOCK if kernel else PRIVATE)
    shadows = {fn.params[i] for i in shadows_of(fn)}
    shared = set(shared_shadows(fn))
    accesses: dict[Value, list[Op]] = {s: [] for s in shadows | shared}
    passed: set[Value] = set()
    for op in fn.walk():
        if op.name in ("load", "store", "accum") and view_base(op.operands[0]) in accesses:
            accesses[view_base(op.operands[0])].append(op)
        elif op.name == "call":
            passed.update(view_base(a) for a in op.operands if a.type.is_array)
    forms = _kernel_forms()
    ranges_at = _thread_ranges(forms)
    used = _thread_axes(fn, module)
    for shadow, ops in accesses.items():
        stores = [op for op in ops if op.name == "accum"]  # a shadow's are the adjoint's
        mode = ATOMIC
        if all_atomic or shadow in passed or any(op.operands[0] is not shadow for op in ops):
            mode = ATOMIC
        elif shadow in shared:
            # Threads of one block share it; the barriers the reverse sweep mirrors order the
            # phases, but within a phase only an index of the thread's own is race-free.
            owner = [[(thread_atom("gid", a),), (thread_atom("tid", a),)] for a in used["thread"]]
            mode = PRIVATE if _owned(ops, forms, ranges_at, owner) else ATOMIC
        elif not kernel:
            mode = ATOMIC
        elif _owned(ops, forms, ranges_at, [[(thread_atom("gid", a),), (thread_atom("tid", a), thread_atom("bid", a))]
                                            for a in used["any"]]):
            mode = PRIVATE
        elif len(stores) == len(ops) and _same_index(ops) and all(_uniform_at_top(v, fn) for v in _index(ops[0])):
            mode = BLOCK  # nothing but accumulations touches it
        for op in stores:
            plan.modes[op] = WARP if mode == ATOMIC and not all_atomic and all(map(warp_uniform, _index(op))) else mode
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


def _builtin_key(name: str, axis: str) -> object:
    """``key`` of the built-in ``name`` on ``axis`` (``blockDim.x``), without the value at hand."""
    return (name, axis, "i64", ())


def thread_uniform(v: Value) -> bool:
    """The same in every thread of the launch: constants, scalar parameters, blockDim, gridDim,
    and pure arithmetic of those (not loads: memory may change under the threads)."""
    op = v.defining_op
    if op is None:
        return v.is_block_arg and v.owner.parent_op is None and not v.type.is_array
    if op.name in ("const", *_UNIFORM_BUILTINS):
        return True
    return (not op.regions and op.name not in GPU_BUILTINS and op.name != "load" and is_pure(op)
            and all(thread_uniform(o) for o in op.operands))


def warp_uniform(v: Value) -> bool:
    """The same in every thread that reaches it at the same step: ``thread_uniform`` values,
    the counters of loops whose bounds are, and pure arithmetic of those. (Threads that
    diverged may be at different steps: ``warp_sum_add`` checks at run time.)"""
    loop = loop_counter(v)
    if loop is not None:
        return all(warp_uniform(b) for b in loop.operands[:3])  # low, high, step
    op = v.defining_op
    if op is None or op.regions or op.name in GPU_BUILTINS or op.name == "load" or not is_pure(op):
        return thread_uniform(v)
    return all(warp_uniform(o) for o in op.operands)


def _uniform_at_top(v: Value, fn: Function) -> bool:
    """Uniform, and defined where the end of the kernel still sees it (the flush is there)."""
    op = v.defining_op
    return thread_uniform(v) and (op is None or op.parent is fn.body or op.name == "const")


def _thread_atom(v: Value) -> Optional[Hashable]:
    op = v.defining_op
    if op is not None and op.name in ("gpu.thread_idx", "gpu.block_idx"):
        return thread_atom("tid" if op.name == "gpu.thread_idx" else "bid", op.attrs["axis"])
    loop = loop_counter(v)
    return loop_atom(loop) if loop is not None else None


def _kernel_forms() -> IndexForms:
    return IndexForms(thread_uniform, _thread_atom, key, _builtin_key)


def _thread_ranges(forms: IndexForms) -> Callable[[Op], Callable[[Hashable], Optional[Coef]]]:
    """For an access: where each atom of its index lies (guards for global ids)."""
    def at(op: Op) -> Callable[[Hashable], Optional[Coef]]:
        guards = forms.guards(op)

        def ranges(atom: Hashable) -> Optional[Coef]:
            kind = atom[0]  # type: ignore[index]
            if kind in ("tid", "bid"):
                return (1, (_builtin_key("gpu.block_dim" if kind == "tid" else "gpu.grid_dim", atom[1]),))  # type: ignore[index]
            if kind == "loop":
                r = forms.loop_range(atom[1])  # type: ignore[index]
                if r is not None:
                    return r
            if kind == "gid" and atom not in guards:  # below gridDim * blockDim, all the threads
                return (1, tuple(sorted((_builtin_key("gpu.block_dim", atom[1]),  # type: ignore[index]
                                         _builtin_key("gpu.grid_dim", atom[1])), key=repr)))  # type: ignore[index]
            return guards.get(atom)
        return ranges
    return at


def _thread_axes(fn: Function, module: Optional[Module]) -> dict[str, list[str]]:
    """The axes the kernel (and the device functions it calls) reads: ``thread`` those of
    threadIdx, ``any`` those of any built-in. An axis never read (other than x) is assumed of
    extent 1."""
    seen: set[str] = set()
    found: dict[str, set[str]] = {"thread": set(), "any": set()}
    todo = [fn]
    while todo:
        f = todo.pop()
        if f.name in seen:
            continue
        seen.add(f.name)
        for op in f.walk():
            if op.name in GPU_BUILTINS:
                found["any"].add(op.attrs["axis"])
                if op.name == "gpu.thread_idx":
                    found["thread"].add(op.attrs["axis"])
            elif op.name == "call" and module is not None and op.attrs["callee"] in module.functions:
                todo.append(module.functions[op.attrs["callee"]])
    # x always counts: a kernel that reads no thread index still runs as many threads as its
    # launch has (each doing the same work), and a launch's threads spread along x first.
    return {k: sorted(v | {"x"}) for k, v in found.items()}


def _owned(ops: list[Op], forms: IndexForms, ranges_at: Callable[[Op], Callable[[Hashable], Optional[Coef]]],
           owner: list[list[tuple]]) -> bool:
    """Whether, at some index position, every access of ``ops`` has one mixed-radix form whose
    digits include, for each entry of ``owner``, one of its alternatives (atoms that must all
    be digits: the global id, or threadIdx with blockIdx): then an address fixes its owner."""
    positions = {len(_index(op)) for op in ops}
    if len(positions) != 1:
        return False
    for k in range(positions.pop()):
        signatures = set()
        for op in ops:
            f = forms.form(_index(op)[k])
            digits = forms.digits(f, ranges_at(op)) if f is not None else None
            if digits is None or not _covers({d[0] for d in digits}, owner):
                break
            signatures.add(owner_key(f, digits))
        else:
            if len(signatures) == 1:
                return True
    return False


def _covers(atoms: set, owner: list[list[tuple]]) -> bool:
    return all(any(set(alt) <= atoms for alt in alts) for alts in owner)


# -- loops whose iterations run in parallel (OpenMP, numba.prange) ----------------------------


def private_accumulations(loop: Op) -> set[Op]:
    """The accumulations in ``loop`` (``accum`` ops, and the stores of the user's ``x[idx] += g``:
    ``accumulation``) that no other iteration can meet: every access to
    that array in the loop is ``iteration_owned``, and no call in the loop is passed it. A call
    adds where its callee's indices say, unseen here: ``d_x[i] += g`` next to
    ``grad_r0_atomic(x, d_x, ...)``, which adds to ``d_x[2]`` from every iteration, is a race
    unless it is atomic too (fuzz seed 9800047), as in ``classify``."""
    by_root: dict[Value, list[Op]] = {}
    passed: set[Value] = set()
    for op in loop.walk():
        if op.name in ("load", "store", "accum"):
            by_root.setdefault(view_base(op.operands[0]), []).append(op)
        elif op.name == "call":
            passed.update(view_base(a) for a in op.operands if a.type.is_array)
    out: set[Op] = set()
    for root, ops in by_root.items():
        if root not in passed and iteration_owned(ops, loop):
            out.update(op for op in ops if op.name != "load" and accumulation(op) is not None)
    return out


def shared_call_accumulations(loop: Op, module: Module) -> list[tuple[Op, Value]]:
    """The calls in ``loop`` (at any depth) that may add to elements other iterations reach,
    with the argument: a gradient passed a shadow that it (or a gradient it calls) adds to.
    The callee's indices are not seen here (k-means' ``grad_dist2`` adds to ``d_c[k * d + j]``
    with ``k = lab[i]``), so the array is taken as shared. A primal callee's writes are the
    loop's own writes: the user says its iterations are independent."""
    memo: dict[str, set[int]] = {}
    out: list[tuple[Op, Value]] = []
    for op in loop.walk():
        callee = module.functions.get(op.attrs.get("callee", "")) if op.name == "call" else None
        if callee is None:
            if op.name == "call":  # not in the module: may write anything it is passed
                out += [(op, a) for a in op.operands if a.type.is_array]
            continue
        shadows = {callee.params[i] for i in shadows_of(callee)}
        if not shadows:
            continue  # a primal function, or a gradient no array of which is active
        written = written_params(module, callee, memo)
        for k, a in enumerate(op.operands):
            if k in written and callee.params[k] in shadows:
                out.append((op, a))
    return out


def iteration_owned(ops: list[Op], loop: Op) -> bool:
    """Whether the loads, stores and accumulations ``ops`` (of one array, inside ``loop``) touch, in each
    iteration, elements no other iteration touches: at one index position, one mixed-radix
    form whose digits include the loop's counter (``x[i]``, ``x[i * m + j]``, ``x[i, j]``)."""
    iv = loop.regions[0].args[0]

    def uniform(v: Value) -> bool:
        if not v.type.is_int:
            return False
        if _invariant(v, loop):  # constants too
            return True
        op = v.defining_op
        return op is not None and op.name in ("add", "sub", "mul", "neg", "cast") and all(map(uniform, op.operands))

    def atom(v: Value) -> Optional[Hashable]:
        if v is iv:
            return OWNER
        inner = loop_counter(v)
        return loop_atom(inner) if inner is not None else None

    forms = IndexForms(uniform, atom, key)

    def ranges_at(op: Op) -> Callable[[Hashable], Optional[Coef]]:
        def ranges(a: Hashable) -> Optional[Coef]:
            if a == OWNER:
                return forms.loop_range(loop)
            return forms.loop_range(a[1]) if a[0] == "loop" else None  # type: ignore[index]
        return ranges

    return (bool(ops) and all(op.operands[0] is ops[0].operands[0] for op in ops)
            and _owned(ops, forms, ranges_at, [[(OWNER,)]]))


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


def update(op: Op) -> Optional[tuple[int, Value]]:
    """For a store ``y[k] = y[k] + e``, ``e + y[k]`` or ``y[k] - e``: (1 or -1, e), when the load
    of ``y[k]`` feeds only the sum, the sum only the store, and nothing between the load and
    the store writes memory; else None."""
    if op.name != "store":
        return None
    arr, *idx, value = op.operands
    loads: list[Op] = []

    def same(a: Value, b: Value) -> bool:
        """Equal values: one SSA value, or pure ops and loads of equal operands (a load read
        again, as -O0 leaves ``idx[i]``, when no write lies between: checked below)."""
        if a is b:
            return True
        p, q = a.defining_op, b.defining_op
        if p is None or q is None or p.name != q.name or p.attrs != q.attrs or a.type != b.type or p.regions \
                or (not is_pure(p) and p.name != "load") or len(p.operands) != len(q.operands):
            return False
        if p.name == "load":
            loads.extend((p, q))
        return all(same(x, y) for x, y in zip(p.operands, q.operands))

    s = value.defining_op
    if s is None or s.name not in ("add", "sub") or len(value.uses) != 1 or s.parent is not op.parent:
        return None
    for k in ((0, 1) if s.name == "add" else (0,)):
        load = s.operands[k].defining_op
        loads.clear()
        if (load is None or load.name != "load" or load.operands[0] is not arr or len(load.result.uses) != 1
                or load.parent is not op.parent or len(load.operands) != len(op.operands) - 1
                or not all(same(v, w) for v, w in zip(load.operands[1:], idx))):
            continue
        ops = op.parent.ops
        if any(x.parent is not op.parent for x in loads):
            return None
        between = ops[min(ops.index(x) for x in [load, *loads]) + 1:ops.index(op)]
        if any(x.regions or x.name in ("store", "call") or (not is_pure(x) and x.name not in ("load", "comment"))
               for x in between):
            return None
        return (1 if s.name == "add" or k == 1 else -1), s.operands[1 - k]
    return None
