"""Memory effects: where each array value points, what functions and ops read and write.

The one memory-effects analysis of s2sad: the optimization passes, reverse mode and the
emitters all ask it.

Arrays are references to memory. Every array value normally traces back to a
*root*: a function parameter, or the result of ``alloc``/``copy``/``tape.new`` or of
a whole-array op (``arr.``): fresh memory. A ``view`` is not a root: it names part
of its base's memory, so it has its base's root, and a write through it writes that
root (a view is never fresh, and two views of one array may overlap).

* ``array_root(v)``: the root, or None when it depends on control flow (an array
  chosen by a branch, carried by a loop, returned by a call): such an array may
  alias everything, and a write through it may write every root. Reverse mode must
  know each root: ``known_root(v)`` gives a located error instead of None.
* ``FunctionEffects``: which array parameters a function reads and writes,
  transitively through the calls it makes (``EffectAnalysis.of``). A call to a
  function that is not in the module is assumed to read and write every array
  it is given. Stores into a function's own ``alloc`` arrays are not effects:
  the caller cannot see them.
* ``is_readonly(fn)``: writes no memory its caller can see (no parameter array,
  directly or through callees); it may read arrays and write local scratch
  arrays. A call to it can be moved past anything that does not write the
  arrays it is given.
* ``is_pure(fn)``: read-only *and* reads no parameter array's contents (``dim``
  reads only the shape): its results depend on its argument values alone, so a
  call to it behaves like a pure op (moved anywhere its operands are defined,
  merged with an identical call).
* ``EffectAnalysis.written_roots(op)`` / ``read_roots(op)``: the roots an op
  (a store, a call, a whole loop or branch with everything nested in it) may
  write or read, as a ``RootSet``.
* ``aliases(a, b, ctx)``: whether two roots may name overlapping memory. The
  contract's default (arrays passed to a function never overlap, as with C's
  ``restrict``) makes distinct roots disjoint; with ``ctx.may_alias`` two
  *parameters* may overlap. Fresh memory (``alloc``, ``copy``, tapes) never
  aliases anything else either way.
* ``written_params``: the array parameters a function stores into, following
  calls, so that a parameter written only inside a callee still counts as written
  by the caller, as the contract requires for the gradient's shadows (and
  ``source_written_params``: those the source wrote, recorded before any pass);
  ``snapshot_args``: the arguments of a call that must be copied for its
  gradient, since they change after it.
* ``overlapping_calls``: the calls of the module's own functions that pass one array twice
  (``relax(n, w, w)``, ``axpy(n, a, w + 1, w)``) to a callee that writes one of them: the
  contract's no-overlap assumption holds only for the entry's arguments, so such a module is
  translated as with ``--may-alias`` (``pipeline``).
"""


from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

from ..diagnostics import DiagnosticError, error
from ..ssa.attrs import POINTER_CASES
from ..ssa.build import const_int
from ..ssa.ir import Block, Function, Module, Op, Value
from ..ssa.array_ops import ACCUMULATIONS, makes_fresh_array
from ..ssa.opdefs import makes_fresh, op_def
from ..ssa.ops import view_base


@dataclass(frozen=True)
class PassContext:
    """Facts and switches every pass may consult: the aliasing assumption, and for the passes
    that prepare a target's output, the function the output is made for."""

    # The contract's default: arrays passed to a function do not overlap, so a
    # store to one cannot change a load from another. --may-alias drops it.
    may_alias: bool = False
    # The gradient asked for, the one function of the output that its caller calls: the only
    # one whose signature a target pass may change (``lower-arrays``: size parameters).
    entry: Optional[str] = None
    # The function the user calls (the one differentiated, or its gradient), where known: its
    # parameters are the user's memory, never a scratch buffer (``opt/dce.scratch_params``,
    # which runs only where this is known).
    called_from_outside: Optional[str] = None
    # --parallel: how the output runs a loop in parallel ("omp", "prange"), for the gradient's loops
    # whose iterations are independent (``opt/forward_order``); None: serially.
    parallel: Optional[str] = None
    # --all-atomic: every adjoint accumulation of CUDA output an atomicAdd (``opt/accum_modes``;
    # bench/gpu.py's baseline).
    all_atomic: bool = False


def array_root(v: Value) -> Optional[Value]:
    """The parameter or fresh-memory result ``v`` refers to; None when that depends on control flow."""
    v = view_base(v)
    if v.is_block_arg:
        return v if v.owner.parent_op is None else None
    op = v.defining_op
    if makes_fresh(op):
        return v
    return None


def is_param(root: Value) -> bool:
    return root.is_block_arg and root.owner.parent_op is None


def aliases(a: Optional[Value], b: Optional[Value], ctx: PassContext) -> bool:
    """Whether roots ``a`` and ``b`` may overlap (None: unknown, may overlap anything)."""
    if a is None or b is None or a is b:
        return True
    return ctx.may_alias and is_param(a) and is_param(b)


@dataclass(frozen=True)
class RootSet:
    """The roots an op may touch; ``anything`` when some of them are unknown."""

    roots: frozenset = field(default_factory=frozenset)
    anything: bool = False

    def may_touch(self, root: Optional[Value], ctx: PassContext) -> bool:
        """Whether memory of ``root`` may be among these (under ``ctx``'s aliasing assumption)."""
        return self.anything or any(aliases(r, root, ctx) for r in self.roots)

    def __bool__(self) -> bool:
        return self.anything or bool(self.roots)


NO_ROOTS = RootSet()


@dataclass(frozen=True)
class FunctionEffects:
    """Indices of the array parameters a function reads and writes (transitively), and whether
    it waits at a barrier (which orders other threads' memory: never dead, never moved)."""

    reads: frozenset[int]
    writes: frozenset[int]
    barrier: bool = False

    @property
    def readonly(self) -> bool:
        return not self.writes

    @property
    def pure(self) -> bool:
        return not self.writes and not self.reads


class EffectAnalysis:
    """Memory effects of the functions of one module, memoized.

    Valid while the module's functions keep their effects: inlining and code
    motion preserve them, so one instance serves a whole pass.
    """

    def __init__(self, module: Module):
        self.module = module
        self._memo: dict[str, FunctionEffects] = {}

    # -- functions --------------------------------------------------------------------
    def of(self, fn: Function) -> FunctionEffects:
        if fn.name not in self._memo:
            # Recursion guard (a function may call itself): assume every effect
            # while the function's own body is being summarized.
            arrays = frozenset(i for i, p in enumerate(fn.params) if p.type.is_array)
            self._memo[fn.name] = FunctionEffects(arrays, arrays, True)
            ops = list(fn.walk())  # once, for the three questions
            reads = self._touched(fn, self._read_roots(ops))
            writes = self._touched(fn, self._written_roots(ops))
            self._memo[fn.name] = FunctionEffects(reads, writes, any(self.waits(op) for op in ops))
        return self._memo[fn.name]

    def waits(self, op: Op) -> bool:
        """``op`` is a barrier, or a call of a function that may wait at one (unknown: may); a
        ``stop`` (the program ends there) is ordered as one, and so are MPI communication (other
        ranks wait for it) and a call that may stop or communicate."""
        kind = op_def(op.name).effects
        if kind == "call":
            eff = self.call_effects(op)
            return eff is None or eff.barrier
        return kind in ("barrier", "stop", "communication")

    def callee(self, op: Op) -> Optional[Function]:
        """The module function a ``call`` names; None when it is not in the module."""
        return self.module.functions.get(op.attrs.get("callee", ""))

    def call_effects(self, op: Op) -> Optional[FunctionEffects]:
        fn = self.callee(op)
        return None if fn is None else self.of(fn)

    def is_readonly(self, fn: Function) -> bool:
        return self.of(fn).readonly

    def is_pure(self, fn: Function) -> bool:
        return self.of(fn).pure

    @staticmethod
    def _touched(fn: Function, roots: RootSet) -> frozenset[int]:
        return frozenset(
            i for i, p in enumerate(fn.params) if p.type.is_array and (roots.anything or p in roots.roots)
        )

    # -- ops ----------------------------------------------------------------------------
    def written_roots(self, op: Op) -> RootSet:
        """Roots that ``op``, or any op nested in its regions, may write."""
        if not op.regions and not op_def(op.name).touches(write=True):
            return NO_ROOTS  # (most ops: asked of every op by the passes that track memory)
        return self._written_roots(op.walk())

    def read_roots(self, op: Op) -> RootSet:
        """Roots whose contents ``op``, or any op nested in its regions, may read."""
        if not op.regions and not op_def(op.name).touches(write=False):
            return NO_ROOTS
        return self._read_roots(op.walk())

    def written_roots_of_nests(self, fn: Function) -> dict[Op, RootSet]:
        """``written_roots(op)`` for every op of ``fn`` that has regions, in one walk.

        Asked one op at a time, each nest is walked again for every nest around it: deeply
        nested code (an ``else if`` chain hundreds long) costs its size times its depth. Here
        each op's set is its own writes and its regions' ops' sets, built from the inside out.
        A pass that only erases ops (never adds a write) may keep using the map: it stays a
        superset."""
        below: dict[Op, RootSet] = {}
        for op in reversed(list(fn.body.walk())):  # every op after the ops nested in it
            if not op.regions:
                continue
            nests = [below[inner] for r in op.regions for inner in r.ops if inner in below]
            # The op itself and its regions' ops without regions, in one collection (one per op
            # was most of this walk's cost).
            own = self._collect([op] + [inner for r in op.regions for inner in r.ops if inner not in below],
                                write=True)
            roots = set(own.roots)
            for part in nests:
                roots |= part.roots
            below[op] = RootSet(frozenset(roots), own.anything or any(part.anything for part in nests))
        return below

    def _written_roots(self, ops: Iterable[Op]) -> RootSet:
        return self._collect(ops, write=True)

    def _read_roots(self, ops: Iterable[Op]) -> RootSet:
        return self._collect(ops, write=False)

    def _collect(self, ops: Iterable[Op], write: bool) -> RootSet:
        roots: set[Value] = set()
        anything = False

        def add(v: Value) -> None:
            nonlocal anything
            r = array_root(v)
            if r is None:
                anything = True
            else:
                roots.add(r)

        for op in ops:
            d = op_def(op.name)
            if not d.touches(write):
                continue
            if d.effects == "barrier":
                anything = True  # what other threads wrote becomes visible: any memory may change
            elif d.effects == "call":
                eff = self.call_effects(op)
                if eff is None:
                    anything = True
                    continue
                for i in eff.writes if write else eff.reads:
                    add(op.operands[i])
            else:
                for v in d.writes(op) if write else d.reads(op):
                    add(v)
        return RootSet(frozenset(roots), anything)


def function_effects(module: Module, fn: Function) -> FunctionEffects:
    return EffectAnalysis(module).of(fn)


def is_readonly(module: Module, fn: Function) -> bool:
    """``fn`` writes no memory its callers can see (see the module docstring)."""
    return EffectAnalysis(module).is_readonly(fn)


def is_pure(module: Module, fn: Function) -> bool:
    """``fn`` neither writes nor reads memory its callers can see: a function of its arguments."""
    return EffectAnalysis(module).is_pure(fn)


def known_root(v: Value) -> Value:
    """``array_root(v)``, which reverse mode needs to know: a located error where it depends on
    control flow."""
    root = array_root(v)
    if root is not None:
        return root
    op = view_base(v).defining_op
    loc = op.loc if op is not None else None
    raise error(
        "this array's identity depends on control flow (an array chosen by a branch or "
        "carried by a loop), which is not supported yet",
        loc,
        hint="index one array explicitly instead of choosing between arrays",
    )


def written_operands(module: Module, op: Op, memo: dict[str, set[int]] | None = None) -> list[Value]:
    """The array operands ``op`` itself (not the ops in its regions) may write: what the op
    table says, and for a call what its callee writes (``written_params``)."""
    if op.name == "call":
        callee = module.functions[op.attrs["callee"]]
        return [op.operands[i] for i in sorted(written_params(module, callee, memo))]
    return op_def(op.name).writes(op)


def written_arrays(module: Module, top: Op | Function, memo: dict[str, set[int]] | None = None) -> list[Value]:
    """The arrays ``top`` (an op and its regions, or a function) may write, directly or through
    calls (``memo``: callees' summaries, ``written_params``, kept by a caller that asks often)."""
    return [a for op in top.walk() for a in written_operands(module, op, memo)]


def _written_roots_in(fn: Function, module: Module, memo: dict[str, set[int]],
                      self_calls: Optional[list[Op]] = None) -> set[Value]:
    """The roots ``fn`` writes; ``self_calls`` (where given) gets its calls of itself."""
    roots: set[Value] = set()
    for op in fn.walk():
        if self_calls is not None and op.name == "call" and op.attrs.get("callee") == fn.name:
            self_calls.append(op)
        for arr in written_operands(module, op, memo):
            if op.name in ACCUMULATIONS:  # an adjoint's d_x += ... (grad_g called by grad_f)
                roots.add(known_root(arr))
            else:
                roots.add(_writable_root(arr, op, module))
    return roots


def stays_as_made(root: Value) -> bool:
    """Whether the array ``root`` is a value no code writes: the result of a whole-array op or
    the array a call returns (``_writable_root`` refuses writes into either)."""
    made = root.defining_op
    return makes_fresh_array(made) or (made is not None and made.name == "call")


def _writable_root(arr: Value, op: Op, module: Module) -> Value:
    """The root ``op`` writes; never the result of a whole-array op or a call, whose value must
    stay as made."""
    root = known_root(arr)
    made = root.defining_op
    if stays_as_made(root):
        what = "a whole-array expression"
        if made.name == "call":  # (one of several copies of a helper: the helper's own name)
            callee = module.functions[made.attrs["callee"]]
            what = f"'{callee.attrs.get('specialized_from', callee.name)}'"
        raise error(
            f"this writes into an array made by {what}, which is not supported yet",
            op.loc,
            hint="make a writable array with np.zeros(...) and fill it, or build the new values whole",
        )
    return root


def written_params(module: Module, fn: Function, memo: dict[str, set[int]] | None = None) -> set[int]:
    """Indices of ``fn``'s array parameters that it (or a callee) stores into."""
    memo = {} if memo is None else memo
    if fn.name not in memo:
        # A function that calls itself sees its own summary: grow it from nothing until its
        # self-calls add no more (they may pass a parameter in another position).
        memo[fn.name] = set()
        while True:
            self_calls: list[Op] = []
            roots = _written_roots_in(fn, module, memo, self_calls)
            found = {i for i, p in enumerate(fn.params) if p in roots}
            if found == memo[fn.name]:
                break
            memo[fn.name] = found
            if not self_calls:  # the summary read no part of itself: no second round
                break
    return memo[fn.name]


@dataclass(frozen=True)
class OverlappingCall:
    """A call passing memory of one array as two arguments, one of which the callee writes."""

    call: Op
    callee: str
    params: tuple[str, str]  # the callee's parameters that overlap


def overlapping_calls(module: Module) -> list[OverlappingCall]:
    """The calls in ``module`` of its own functions whose array arguments share a root where the
    callee writes one of them. The callee's code (and its gradient) may not then take a store to
    one parameter to leave the other unchanged, as the contract's default lets it."""
    memo: dict[str, set[int]] = {}
    found: list[OverlappingCall] = []
    for fn in module.functions.values():
        for op in fn.walk():
            pairs = overlapping_args(module, op, memo)
            if pairs:
                callee = module.functions[op.attrs["callee"]]
                i, j = pairs[0]
                found.append(OverlappingCall(op, callee.name, (callee.params[i].name_hint, callee.params[j].name_hint)))
    return found


def overlapping_args(module: Module, op: Op, memo: Optional[dict[str, set[int]]] = None) -> list[tuple[int, int]]:
    """The pairs of array arguments of ``op``, a call of a function of ``module``, that share a
    root where the callee writes one of them (``relax(n, w, w)``, ``axpy(n, a, w + 1, w)``);
    not different members of one struct nor different rows, which no access through one
    reaches, nor the calls of a pointer-dispatch branch (each case of which pointer is which)."""
    callee = module.functions.get(op.attrs.get("callee", "")) if op.name == "call" else None
    if callee is None or _in_pointer_cases(op):
        return []
    arrays = [(k, array_root(v)) for k, v in enumerate(op.operands) if v.type.is_array]
    try:
        written = written_params(module, callee, memo)
    except DiagnosticError:
        return []  # (differentiating the callee reports it, located)
    return [(i, j) for n, (i, a) in enumerate(arrays) for j, b in arrays[n + 1:]
            if a is not None and b is a and (i in written or j in written) and max(i, j) < len(callee.params)
            and not _other_members(op.operands[i], op.operands[j]) and not _other_rows(op.operands[i], op.operands[j])]


def _other_members(a: Value, b: Value) -> bool:
    """Whether ``a`` and ``b`` point into different members of one struct of an array of structs
    (``b->vel`` and ``bodies[i].pos``: ``field`` ops of one element and different members), which
    C lets no access through one reach."""
    fields = []
    for v in (a, b):
        made = v.defining_op
        index = made.operands[1] if made is not None and made.name == "view" and len(made.operands) == 2 else None
        f = index.defining_op if index is not None else None
        if f is None or f.name != "field" or not f.operands:
            return False
        fields.append(f)
    x, y = fields
    return (x.attrs.get("struct") == y.attrs.get("struct") and x.operands[0] is y.operands[0]
            and _member(x.attrs.get("path", "")) != _member(y.attrs.get("path", "")))


def _other_rows(a: Value, b: Value) -> bool:
    """Whether ``a`` and ``b`` are different rows of one array (``h[l]`` and ``h[l + 1]`` of a
    ``double h[N][H]``: views that drop its first axis at indices a nonzero constant apart)."""
    x, y = a.defining_op, b.defining_op
    if x is None or y is None or x.name != "view" or y.name != "view" or len(x.operands) != 2 \
            or len(y.operands) != 2 or x.operands[0] is not y.operands[0]:
        return False
    base = x.operands[0]
    if not (base.type.is_array and a.type.is_array and a.type.rank < base.type.rank):  # type: ignore[attr-defined]
        return False
    apart = constant_difference(x.operands[1], y.operands[1])
    return apart is not None and apart != 0


def constant_difference(i: Value, j: Value) -> Optional[int]:
    """``j - i`` where it is a constant evident from how ``j`` is made (``i + 1``); else None."""
    if i is j:
        return 0
    ci, cj = const_int(i), const_int(j)
    if ci is not None and cj is not None:
        return cj - ci
    for u, v, sign in ((i, j, 1), (j, i, -1)):
        made = v.defining_op
        if made is not None and made.name in ("add", "sub") and made.operands[0] is u:
            c = const_int(made.operands[1])
            if c is not None:
                return sign * (c if made.name == "add" else -c)
    return None


def _member(path: str) -> str:
    """The struct's own member a field path starts with (``.vel[]``: ``vel``)."""
    return path.lstrip(".").split(".")[0].split("[")[0]


def _in_pointer_cases(op: Op) -> bool:
    """Whether ``op`` is in a branch of C input's pointer dispatch (``attrs.POINTER_CASES``)."""
    block = op.parent
    while block is not None and block.parent_op is not None:
        if block.parent_op.attrs.get(POINTER_CASES):
            return True
        block = block.parent_op.parent
    return False


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


def snapshot_args(module: Module, caller: Function, op: Op, may_alias: bool = False,
                  later: Optional["LaterWrites"] = None) -> list[int]:
    """Array arguments of a call whose contents may change after it (by the callee or the caller).

    The reverse sweep re-runs the callee's gradient from the arguments as they
    were at the call, so these must be copied just before the call. With
    ``may_alias`` a write to any parameter array may change every parameter array. ``later``:
    what each block of ``caller`` writes, for a caller that asks at each of many calls.
    """
    written = (later or LaterWrites(module)).at_or_after(op)
    written = may_be_written(caller, written, may_alias)
    return [i for i, a in enumerate(op.operands) if a.type.is_array and known_root(a) in written]


def written_at_or_after(module: Module, op: Op, memo: dict[str, set[int]] | None = None) -> set[Value]:
    """The roots that ``op`` itself, or anything that may run after it, may write: the ops after
    it in its block and in each enclosing one, and the whole of every enclosing loop (its next
    iteration runs again what came before ``op``). What only runs before ``op`` leaves the arrays
    as ``op`` saw them until the reverse sweep reads them."""
    later: list[Op] = [op]
    inner = op
    while inner.parent is not None:
        block = inner.parent
        owner = block.parent_op
        if owner is not None and owner.name in ("for", "while"):
            later += [o for region in owner.regions for o in region.ops]
        else:
            later += block.ops[block.ops.index(inner) + 1:]
        if owner is None:
            break
        inner = owner
    return {known_root(a) for top in later for a in written_arrays(module, top, memo)}


class LaterWrites:
    """``written_at_or_after`` for one call after another of a function that does not change
    meanwhile, with what each op writes and where in its block each root is last written worked
    out once: asked afresh, each call walked every op after it (a file of many helpers, each
    called in turn by ``f``: quadratic in the calls)."""

    def __init__(self, module: Module):
        self.module = module
        self.memo: dict[str, set[int]] = {}  # the callees' summaries (``written_params``)
        self._roots: dict[int, set[Optional[Value]]] = {}  # by op id: its roots (None: unknown)
        self._last: dict[int, dict[Optional[Value], int]] = {}  # by block id: root -> last writer's index
        self._index: dict[int, dict[int, int]] = {}  # by block id: op id -> its index

    def at_or_after(self, op: Op) -> set[Value]:
        out = set(self._roots_of(op))
        inner = op
        while inner.parent is not None:
            block = inner.parent
            owner = block.parent_op
            if owner is not None and owner.name in ("for", "while"):
                out |= self._roots_of(owner)  # the loop's next iteration: all of it
            else:
                last = self._last_writers(block)
                k = self._index[id(block)][id(inner)]
                out.update(root for root, at in last.items() if at > k)
            if owner is None:
                break
            inner = owner
        if None in out:  # a root that depends on control flow: the walk above says where
            return written_at_or_after(self.module, op, self.memo)
        return out  # type: ignore[return-value]

    def _roots_of(self, op: Op) -> set[Optional[Value]]:
        key = id(op)
        if key not in self._roots:
            self._roots[key] = {array_root(a) for a in written_arrays(self.module, op, self.memo)}
        return self._roots[key]

    def _last_writers(self, block: Block) -> dict[Optional[Value], int]:
        key = id(block)
        if key not in self._last:
            last: dict[Optional[Value], int] = {}
            for k, o in enumerate(block.ops):
                for root in self._roots_of(o):
                    last[root] = k
            self._last[key] = last
            self._index[key] = {id(o): k for k, o in enumerate(block.ops)}
        return self._last[key]


def may_be_written(fn: Function, written: set[Value], may_alias: bool) -> set[Value]:
    """The roots whose memory a write to ``written`` may change: with ``may_alias``, a write to
    one parameter array may change every parameter array (they may share memory)."""
    params = {p for p in fn.params if p.type.is_array}
    if may_alias and written & params:
        return written | params
    return written


def call_writes(module: Module, op: Op) -> bool:
    return bool(written_params(module, module.functions[op.attrs["callee"]]))
