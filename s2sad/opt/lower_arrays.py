"""Lowering of whole-array ops (``arr.``) to element loops, for C output.

C has no array values, so before the C emitter runs, every ``arr.`` op of a
function becomes the scalar IR a person would write in C: an ``alloc`` of the
result (``malloc``'d once, freed by the emitter at the end of the block) and a
loop nest that fills it with ``load``/``store`` and scalar ops; a full
reduction becomes a loop with a carried accumulator; the adjoint's
accumulations (``arr.accum*``) become loops of scalar ``accum`` ops (``+=``) into the shadow. The
Python targets never see this pass: they keep the ops whole (NumPy).

Shapes: an array operand's extents are ``dim`` ops (the emitter resolves those
of parameters through ``sizes``, those of allocations through their operands);
a lowered result's extents are those of the operands it broadcasts from.
Broadcasting follows ``array_ops``: axes aligned on the right, and an axis is
of extent 1 only where that is known statically (``keepdims`` reductions and
what is computed from them, ``shape_unit_axes``); other axes are taken to
match, as NumPy would otherwise raise.

Fusion: an elementwise result (or a broadcast) read once, by an elementwise op,
a reduction or an accumulation of the same shape further down the same block,
with nothing between them that writes memory, is not materialized: its element
is computed where the consumer reads it (``t[i] = tanh(W_x[i] + b[i]) - y[i]``).
Same shape only, so no element is computed twice; a chain stays one loop.

Shape symbols: an annotation ``W: "f64[m, n]"`` whose ``m``/``n`` are not
parameters leaves C no way to know the extents, so ``add_size_params`` makes
them ``long`` parameters of the entry function (after the arrays and their
shadows, before ``d_return``), in order of first appearance.

The pass ``lower-arrays`` (``run``) does both for a whole module, in the C and CUDA
targets' pipeline (``opt.passes.TARGET_PIPELINES``), before their emitters run.

Precondition: the module has passed the verifier; post-condition: no ``arr.``
op is left in the functions lowered, and the verifier still passes.
"""

from __future__ import annotations

import ast
from typing import Callable, Optional

from ..analysis.effects import PassContext
from ..diagnostics import error
from ..ssa import array_ops, build
from ..ssa.array_ops import PREFIX, shape_unit_axes
from ..ssa.attrs import grad_info
from ..ssa.ir import Block, Builder, Function, Module, Op, Value
from ..ssa.opdefs import is_pure
from ..ssa.types import BOOL, F64, I64, ArrayType, ScalarType, Type

MAX_LEAVES = 4  # operands of one fused element expression: what reads at a glance in one line
_SCALAR_BINARY = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "floordiv": "floordiv", "mod": "mod",
                  "pow": "pow"}
_MINMAX = {"maximum": "max", "minimum": "min"}


def _indices_at(b: Builder, idx: list[Value], picked: list[Value], extents: list[Value]) -> list[Value]:
    """The positions that element ``picked`` of the index arrays ``idx`` names, one per axis of
    an array of ``extents``: a negative entry counts from the end, as NumPy counts it."""
    return [build.from_end(b, build.cast(b, b.op1("load", [i, *picked], _elem(i.type)), I64), n)
            for i, n in zip(idx, extents)]


def has_array_ops(fn: Function) -> bool:
    return any(array_ops.is_array_op(op.name) for op in fn.walk())


def add_size_params(module: Module, fn: Function) -> list[str]:
    """Shape symbols of ``fn``'s annotations that are not parameters, made ``long`` parameters."""
    shapes = dict(fn.attrs.get("shapes") or {})
    primal = module.functions.get(fn.attrs.get("primal", ""))
    if primal is not None:
        for k, v in (primal.attrs.get("shapes") or {}).items():
            shapes.setdefault(k, v)
    taken = set(fn.param_names)
    symbols: list[str] = []
    for name in fn.param_names:
        for extent in shapes.get(name) or []:
            for sym in _symbols(extent):
                if sym not in taken and sym not in symbols:
                    symbols.append(sym)
    if not symbols:
        return []
    args = fn.body.args
    info = grad_info(fn)
    at = info.d_return if info is not None and info.d_return is not None else len(args)
    for k, sym in enumerate(symbols):
        fn.body.args.insert(at + k, Value(I64, sym, fn.body, 0))
    for i, a in enumerate(fn.body.args):
        a.index = i
    return symbols


def _symbols(extent) -> list[str]:
    if not isinstance(extent, str):
        return []
    try:
        tree = ast.parse(extent.strip(), mode="eval")
    except SyntaxError:
        return []
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]


def run(module: Module, ctx: PassContext) -> None:
    """The ``lower-arrays`` pass: every whole-array op of the module becomes element loops. The
    entry (``ctx.entry``) first gains the size parameters its annotations' shape symbols need."""
    if not any(has_array_ops(fn) for fn in module.functions.values()):
        return
    if ctx.entry is not None:
        add_size_params(module, module.functions[ctx.entry])
    lower_module(module, set(module.functions))


def lower_module(module: Module, names: set[str]) -> None:
    for name in names:
        fn = module.functions[name]
        if has_array_ops(fn):
            refuse(fn)
            _Lowering(fn).run()


def _elem(t: Type) -> ScalarType:
    return t.elem if isinstance(t, ArrayType) else t  # type: ignore[return-value]


def _length(b: Builder, lo: Value, hi: Value) -> Value:
    """The length of ``x[lo:hi]``: ``max(hi - lo, 0)``, as Python's ``len`` says (``x[1:]`` of an
    empty ``x`` is empty). C allocates the slice's copy with that count and copies that many:
    with the copy loop bounded by ``hi - lo`` instead, gcc -O2 turns the loop into a memcpy of
    ``(hi - lo) * 8`` bytes, which it reports as 2^64 - 8 bytes written into the empty copy on a
    path where ``hi - lo`` is -1 (fuzz seed 10930572)."""
    length = build.sub(b, hi, lo)
    c = build.const_int(length)
    if c is not None:
        return build.int_const(b, max(c, 0))
    return build.math(b, "max", length, build.int_const(b, 0), hint="length")


def _rank(t: Type) -> int:
    return t.rank if isinstance(t, ArrayType) else 0


class _Lowering:
    def __init__(self, fn: Function):
        self.fn = fn
        self.shape: dict[Value, list[Value]] = {}
        self.units: dict[Value, frozenset[int]] = {}
        self.made: set[Op] = set()  # the allocations of lowered results
        self.fused: set[Op] = set()  # ops computed inside their consumer's loop, never stored

    def run(self) -> None:
        # The unit axes are facts about the ops as they are: collect them before rewriting any.
        for op in self.fn.walk():
            if array_ops.is_array_op(op.name) and op.results:
                self.units[op.result] = self._unit_axes(op)
        for op in list(self.fn.walk()):
            if op.name in (PREFIX + "slice", PREFIX + "accum_slice"):
                self._clamp_bounds(op)
        self.fused = {op for op in self.fn.walk() if self._fusible(op)}
        self._limit_fusion()
        for op in list(self.fn.walk()):
            if array_ops.is_array_op(op.name) and op not in self.fused:
                self._lower(op)
        self._hoist_allocs()

    def _clamp_bounds(self, op: Op) -> None:
        """A slice's bounds as Python reads them (``x[k:]``, ``x[:-lag]``: a negative one counts
        from the end, then both are clamped to [0, extent]), made plain indices for the loops.
        Evident bounds stay as they are: a constant lower one (past the end it leaves no
        elements: the length is clamped), the extent, and the extent less a constant."""
        first = 1 if op.name == PREFIX + "slice" else 2
        src = op.operands[0]
        b = Builder(op.parent, op.loc).before_op(op)
        k, at = 0, first
        for kind in op.attrs["axes"]:
            if kind != "r":
                k, at = k + 1, at + 1
                continue
            for j, upper in ((at, False), (at + 1, True)):
                v = op.operands[j]
                if self._evident_bound(v, src, k, upper):
                    continue
                zero = build.int_const(b, 0)
                dim = b.op1("dim", [src], I64, axis=k)
                v = build.select(b, build.cmp(b, "lt", v, zero), build.add(b, v, dim), v)
                v = build.select(b, build.cmp(b, "lt", v, zero), zero, v)
                op.set_operand(j, build.select(b, build.cmp(b, "lt", dim, v), dim, v))
            k, at = k + 1, at + 2

    @staticmethod
    def _evident_bound(v: Value, src: Value, axis: int, upper: bool) -> bool:
        c = build.const_int(v)
        if c is not None:
            return c == 0 or (c > 0 and not upper)
        d = v.defining_op
        if d is not None and d.name == "add" and build.const_int(d.operands[1]) is not None \
                and build.const_int(d.operands[1]) <= 0:  # the extent less a constant (x[:-1])
            d = d.operands[0].defining_op
        # The extent of the array sliced, or for an adjoint's accum_slice into a shadow, of the
        # primal array it shadows (the same shape): the bounds are the primal slice's.
        return d is not None and d.name == "dim" and d.attrs["axis"] == axis and (
            d.operands[0] is src or d.operands[0].type == src.type)

    def _fusible(self, op: Op) -> bool:
        """Whether ``op``'s result can be computed inside its one consumer's loop (module docstring)."""
        n = op.name[len(PREFIX):]
        remap = n in ("broadcast", "transpose", "outer")  # an element costs an index or one product
        if not (remap or array_ops.per_element(n)) or not op.results or len(op.result.uses) != 1:
            return False
        user, _ = next(iter(op.result.uses))
        if user.parent is not op.parent or not array_ops.is_array_op(user.name):
            return False
        u = user.name[len(PREFIX):]
        if u == "matmul" and n in ("transpose", "broadcast"):
            shaped = None  # read as often as without fusion: no shape to match
        elif u in ("accum", "sum", "mean"):
            if u == "accum" and user.operands[1] is not op.result:
                return False
            shaped = user.operands[0] if u == "accum" else op.result
        elif array_ops.per_element(u):
            shaped = user.result
        else:
            return False
        if shaped is not None and (_rank(shaped.type) != _rank(op.result.type)
                                   or self._units_of(shaped) != self._units_of(op.result)):
            return False
        block = op.parent
        assert block is not None
        between = block.ops[block.ops.index(op) + 1: block.ops.index(user)]
        return all(_reads_only(o) for o in between)

    def _limit_fusion(self) -> None:
        """Keep each fused expression short enough to read (and within C's line limit): a tree
        of more than ``MAX_LEAVES`` operands materializes its largest fused operand."""
        changed = True
        while changed:
            changed = False
            for op in self.fn.walk():
                if not array_ops.is_array_op(op.name) or op in self.fused and self._consumer_fused(op):
                    continue
                while self._leaves(op) > MAX_LEAVES:
                    inner = [v.defining_op for v in op.operands if v.defining_op in self.fused]
                    if not inner:
                        break
                    self.fused.discard(max(inner, key=self._leaves))
                    changed = True

    def _consumer_fused(self, op: Op) -> bool:
        return bool(op.results) and len(op.result.uses) == 1 and next(iter(op.result.uses))[0] in self.fused

    def _leaves(self, op: Op) -> int:
        total = 0
        for v in op.operands:
            d = v.defining_op
            if d is not None and d in self.fused:
                total += self._leaves(d)
            elif d is None or d.name != "const":
                total += 1
        return total

    def _units_of(self, v: Value) -> frozenset[int]:
        return self.units.get(v, shape_unit_axes(v))

    def _hoist_allocs(self) -> None:
        """Move the function body's work arrays to its top, after the ops their sizes need.

        They are freed at the end of the body whatever their place, so this costs no memory;
        and gcc, which proves after ``for (i = 0; i < m; i++)`` that ``m`` may be negative on
        the path that skips the loop, then warns that ``malloc(m * ...)`` could be huge."""
        body = self.fn.body
        at = 0
        while at < len(body.ops) and body.ops[at].name == "comment":
            at += 1
        for op in list(body.ops):
            if op not in self.made:
                continue
            needed: list[Op] = []
            if not all(self._movable(v, needed) for v in op.operands):
                continue
            for dep in needed + [op]:
                if body.ops.index(dep) >= at:
                    body.ops.remove(dep)
                    body.insert(at, dep)
                    at += 1

    def _movable(self, v: Value, needed: list[Op]) -> bool:
        """Whether ``v`` can be computed at the top of the body (collecting the ops it takes)."""
        if v.owner is self.fn.body:
            return True  # a parameter
        d = v.defining_op
        if d is None or d.parent is not self.fn.body or d.regions:
            return False
        if d.name == "dim":
            if d.operands[0].owner is not self.fn.body:
                return False
        elif not is_pure(d):
            return False
        elif not all(self._movable(o, needed) for o in d.operands):
            return False
        if d not in needed:
            needed.append(d)
        return True

    def _unit_axes(self, op: Op) -> frozenset[int]:
        n = op.name[len(PREFIX):]
        if n in ("broadcast", "sum_to"):
            like = op.operands[1]
            return self.units.get(like, shape_unit_axes(like))
        if array_ops.per_element(n):
            arrays = [o for o in op.operands if o.type.is_array]
            r = _rank(op.result.type)
            if arrays and all(_rank(o.type) == r for o in arrays):
                out: Optional[frozenset[int]] = None
                for o in arrays:
                    u = self.units.get(o, shape_unit_axes(o))
                    out = u if out is None else out & u
                return out or frozenset()
            return frozenset()
        return shape_unit_axes(op.result) if op.result.type.is_array else frozenset()

    # -- shapes and element access -----------------------------------------------------
    def dims(self, b: Builder, v: Value) -> list[Value]:
        if v not in self.shape:
            d = v.defining_op
            if d is not None and d in self.fused:  # never materialized: the shape it broadcasts to
                if d.name == PREFIX + "broadcast":
                    self.shape[v] = self.dims(b, d.operands[1])
                elif d.name == PREFIX + "transpose":
                    self.shape[v] = self.dims(b, d.operands[0])[::-1]
                elif d.name == PREFIX + "outer":
                    self.shape[v] = [self.dims(b, d.operands[0])[0], self.dims(b, d.operands[1])[0]]
                else:
                    self.shape[v] = self.broadcast_shape(b, [o for o in d.operands if o.type.is_array],
                                                         _rank(v.type))
            else:
                dims = [b.op1("dim", [v], I64, axis=k) for k in range(_rank(v.type))]
                home = v.owner if v.is_block_arg else v.defining_op.parent  # type: ignore[union-attr]
                if b.block is not home:
                    return dims  # made in a loop or branch: not in scope where v is used after it
                self.shape[v] = dims
        return self.shape[v]

    def broadcast_shape(self, b: Builder, operands: list[Value], rank: int) -> list[Value]:
        out: list[Value] = []
        for axis in range(rank):
            found: Optional[Value] = None
            for o in operands:
                r = _rank(o.type)
                k = axis - (rank - r)
                if r and k >= 0 and k not in self._units_of(o):
                    found = self.dims(b, o)[k]
                    break
            out.append(found if found is not None else build.const(b, 1, I64))
        return out

    def read(self, b: Builder, v: Value, idx: list[Value], elem: Optional[ScalarType] = None) -> Value:
        """``v`` at the result index ``idx`` (broadcast: right-aligned, unit axes at 0)."""
        r = _rank(v.type)
        if r == 0:
            x = v
        else:
            units = self._units_of(v)
            mine = idx[len(idx) - r:]
            zero = None
            sub = []
            for k, i in enumerate(mine):
                if k in units:
                    zero = zero or build.const(b, 0, I64)
                    sub.append(zero)
                else:
                    sub.append(i)
            d = v.defining_op
            if d is not None and d in self.fused:
                x = self._element(b, d, sub)
            else:
                x = b.op1("load", [v, *sub], _elem(v.type))
        if elem is not None and elem.is_float and not x.type.is_float:
            x = build.cast(b, x, elem)
        return x

    def _element(self, b: Builder, op: Op, idx: list[Value]) -> Value:
        """Element ``idx`` of a fused op's result, computed in place."""
        n = op.name[len(PREFIX):]
        elem = _elem(op.result.type)
        if n == "broadcast":
            g = op.operands[0]
            axis = op.attrs.get("axis")
            return self.read(b, g, idx if axis is None else idx[:axis] + idx[axis + 1:], elem)
        if n == "transpose":
            return self.read(b, op.operands[0], idx[::-1], elem)
        if n == "outer":
            return build.mul(b, self.read(b, op.operands[0], idx[:1], F64), self.read(b, op.operands[1], idx[1:], F64))
        compute_elem = self._compute_elem(n, op.operands, elem)
        # np.where's condition stays a bool; the other operands are converted as NumPy does.
        xs = [self.read(b, o, idx, None if n == "where" and k == 0 else compute_elem)
              for k, o in enumerate(op.operands)]
        return self._scalar(b, n, xs, elem)

    @staticmethod
    def _compute_elem(n: str, operands: list[Value], elem: ScalarType) -> Optional[ScalarType]:
        """The type operands are converted to: float where the result or a compared operand is."""
        if elem.is_float or n in array_ops.COMPARE and any(_elem(o.type).is_float for o in operands):
            return F64
        return None

    def alloc(self, b: Builder, t: Type, dims: list[Value], zero: bool, hint: str) -> Value:
        v = b.op1("alloc", dims, t, hint, fill="zeros" if zero else "empty", elem=_elem(t).name)
        self.shape[v] = dims
        self.made.add(v.defining_op)
        return v

    def loops(self, b: Builder, dims: list[Value], body: Callable[[Builder, list[Value]], None]) -> None:
        """``body(builder, indices)`` inside a nest of loops over ``dims`` (one per axis)."""
        ivs: list[Value] = []
        blocks: list[Block] = []
        inner = b
        for d in dims:
            block = Block([I64], [f"i{len(ivs)}" if len(dims) > 1 else "i"])
            inner.create("for", [build.const(inner, 0, I64), d, build.const(inner, 1, I64)], [], regions=[block])
            ivs.append(block.args[0])
            blocks.append(block)
            inner = Builder(block, b.loc)
        body(inner, ivs)
        for block in blocks:
            Builder(block).create("yield", [], [])

    def reduce(self, b: Builder, dims: list[Value], init: Value, step: Callable[[Builder, list[Value], Value], Value]
               ) -> Value:
        """A carried accumulator over the index space ``dims``: ``acc = step(acc)``."""
        if not dims:
            return init
        block = Block([I64, init.type], ["i" if len(dims) == 1 else "i0", "acc"])
        loop = b.create("for", [build.const(b, 0, I64), dims[0], build.const(b, 1, I64), init], [init.type],
                        regions=[block])
        inner = Builder(block, b.loc)
        iv, acc = block.args

        def rest(bb: Builder, ivs: list[Value], acc: Value) -> Value:
            return step(bb, [iv, *ivs], acc)

        if len(dims) == 1:
            new = step(inner, [iv], acc)
        else:
            new = self._reduce_inner(inner, dims[1:], acc, rest, 1)
        inner.create("yield", [new], [])
        return loop.result

    def _reduce_inner(self, b: Builder, dims: list[Value], init: Value, step, depth: int) -> Value:
        block = Block([I64, init.type], [f"i{depth}", "acc"])
        loop = b.create("for", [build.const(b, 0, I64), dims[0], build.const(b, 1, I64), init], [init.type],
                        regions=[block])
        inner = Builder(block, b.loc)
        iv, acc = block.args
        if len(dims) == 1:
            new = step(inner, [iv], acc)
        else:
            new = self._reduce_inner(inner, dims[1:], acc, lambda bb, ivs, a: step(bb, [iv, *ivs], a), depth + 1)
        inner.create("yield", [new], [])
        return loop.result

    # -- the ops -------------------------------------------------------------------------
    def _lower(self, op: Op) -> None:
        b = Builder(op.parent, op.loc).before_op(op)  # type: ignore[arg-type]
        b.loc = op.loc
        n = op.name[len(PREFIX):]
        result = self._build(b, op, n)
        if op.results:
            assert result is not None
            if op.result in self.units:
                self.units[result] = self.units[op.result]
            if not result.name_hint:
                result.name_hint = op.result.name_hint
            op.result.replace_all_uses_with(result)
        producers = [v.defining_op for v in op.operands if v.defining_op in self.fused]
        op.erase()
        self._erase_fused(producers)

    def _erase_fused(self, ops: list) -> None:
        for p in ops:
            if p.parent is not None and not p.result.uses:
                inner = [v.defining_op for v in p.operands if v.defining_op in self.fused]
                p.erase()
                self._erase_fused(inner)

    def _build(self, b: Builder, op: Op, n: str) -> Optional[Value]:
        a = op.operands
        t = op.result.type if op.results else None
        hint = op.result.name_hint if op.results else ""
        if array_ops.per_element(n):
            assert t is not None
            arrays = [o for o in a if o.type.is_array]
            dims = self.broadcast_shape(b, arrays, _rank(t))
            out = self.alloc(b, t, dims, False, hint)

            def body(bb: Builder, ivs: list[Value]) -> None:
                bb.create("store", [out, *ivs, self._element(bb, op, ivs)], [])

            self.loops(b, dims, body)
            return out
        if n in array_ops.REDUCTIONS:
            return self._reduction(b, op, n)
        if n in ("cumsum", "prod_others"):
            assert t is not None
            return self._scan(b, op, n, t, hint)
        if n == "matmul":
            return self._matmul(b, op)
        if n == "outer":
            assert t is not None
            dims = [self.dims(b, a[0])[0], self.dims(b, a[1])[0]]
            out = self.alloc(b, t, dims, False, hint)
            self.loops(b, dims, lambda bb, iv: bb.create("store", [out, *iv, build.mul(
                bb, self.read(bb, a[0], iv[:1], F64), self.read(bb, a[1], iv[1:], F64))], []))
            return out
        if n == "transpose":
            assert t is not None
            d = self.dims(b, a[0])
            out = self.alloc(b, t, [d[1], d[0]], False, hint)
            self.loops(b, [d[1], d[0]], lambda bb, iv: bb.create(
                "store", [out, *iv, bb.op1("load", [a[0], iv[1], iv[0]], _elem(t))], []))
            return out
        if n == "full":
            assert t is not None
            dims, value = list(a[:-1]), a[-1]
            if build.is_const(value, 0):
                return self.alloc(b, t, dims, True, hint)
            out = self.alloc(b, t, dims, False, hint)
            self.loops(b, dims, lambda bb, iv: bb.create("store", [out, *iv, value], []))
            return out
        if n == "broadcast":
            assert t is not None
            g, like = a
            dims = self.dims(b, like)
            out = self.alloc(b, t, dims, False, hint)
            axis = op.attrs.get("axis")

            def bcast(bb: Builder, iv: list[Value]) -> None:
                idx = iv if axis is None else iv[:axis] + iv[axis + 1:]
                bb.create("store", [out, *iv, self.read(bb, g, idx, _elem(t))], [])

            self.loops(b, dims, bcast)
            return out
        if n == "sum_to":
            assert t is not None
            g, like = a
            out = self.alloc(b, t, self.dims(b, like), True, hint)
            lead = _rank(g.type) - _rank(like.type)
            keep = set(op.attrs.get("keep", []))

            def add_in(bb: Builder, iv: list[Value]) -> None:
                zero = build.const(bb, 0, I64)
                dst = [zero if k in keep else i for k, i in enumerate(iv[lead:])]
                self._add_into(bb, out, dst, self.read(bb, g, iv))

            self.loops(b, self.dims(b, g), add_in)
            return out
        if n == "slice":
            assert t is not None
            src = a[0]
            axes = op.attrs["axes"]
            bounds = list(a[1:])
            dims, starts, k = [], [], 0
            for kind in axes:
                if kind == "r":
                    lo, hi = bounds[k], bounds[k + 1]
                    dims.append(_length(b, lo, hi))
                    starts.append(("r", lo))
                    k += 2
                else:
                    starts.append(("i", bounds[k]))
                    k += 1
            if not dims:
                return b.op1("load", [src, *[s for _, s in starts]], _elem(t), hint)
            out = self.alloc(b, t, dims, False, hint)
            self.loops(b, dims, lambda bb, iv: bb.create("store", [out, *iv, bb.op1(
                "load", [src, *self._slice_index(bb, starts, iv)], _elem(t))], []))
            return out
        if n == "reshape":
            assert t is not None
            return self._reshape(b, op, t, hint)
        if n == "take":
            assert t is not None
            src, *idx = a
            extents = self.dims(b, src)
            whole = extents[len(idx):]  # the axes no index picks (a[rows]: each row whole)
            dims = self.dims(b, idx[0]) + whole
            out = self.alloc(b, t, dims, False, hint)

            def gather(bb: Builder, iv: list[Value]) -> None:
                picked = iv[:len(iv) - len(whole)]
                at = _indices_at(bb, idx, picked, extents)
                rest = iv[len(picked):]
                bb.create("store", [out, *iv, bb.op1("load", [src, *at, *rest], _elem(t))], [])

            self.loops(b, dims, gather)
            return out
        if n == "accum":
            dst, v = a
            self.loops(b, self.dims(b, dst), lambda bb, iv: self._add_into(bb, dst, iv, self.read(
                bb, v, iv, _elem(dst.type))))
            return None
        if n == "accum_take":
            dst, *idx, v = a
            extents = self.dims(b, dst)
            whole = extents[len(idx):]

            def scatter(bb: Builder, iv: list[Value]) -> None:
                picked = iv[:len(iv) - len(whole)]
                at = _indices_at(bb, idx, picked, extents)
                self._add_into(bb, dst, at + iv[len(picked):], self.read(bb, v, iv, _elem(dst.type)))

            self.loops(b, self.dims(b, idx[0]) + whole, scatter)
            return None
        if n == "accum_slice":
            dst, v = a[0], a[1]
            bounds = list(a[2:])
            dims, starts, k = [], [], 0
            for kind in op.attrs["axes"]:
                if kind == "r":
                    dims.append(build.sub(b, bounds[k + 1], bounds[k]))
                    starts.append(("r", bounds[k]))
                    k += 2
                else:
                    starts.append(("i", bounds[k]))
                    k += 1
            if v.type.is_array and v.type.rank == len(dims):  # type: ignore[attr-defined]
                # The value's own extents, the ones its buffer was allocated with: the same
                # lengths, and the compiler sees the loop stay inside that buffer (gcc -O2 warns
                # of an iteration past any object where the bound is another expression).
                dims = self.dims(b, v)
            self.loops(b, dims, lambda bb, iv: self._add_into(
                bb, dst, self._slice_index(bb, starts, iv), self.read(bb, v, iv, _elem(dst.type))))
            return None
        if n in _LINALG_LOOPS or n in ("roll", "pad", "unpad"):
            return getattr(self, "_" + n)(b, op)
        raise NotImplementedError(f"C lowering: no loops for '{op.name}'")

    def _slice_index(self, b: Builder, starts: list[tuple[str, Value]], ivs: list[Value]) -> list[Value]:
        out, k = [], 0
        for kind, s in starts:
            if kind == "r":
                out.append(build.add(b, s, ivs[k]))
                k += 1
            else:
                out.append(s)
        return out

    def _add_into(self, b: Builder, arr: Value, idx: list[Value], x: Value) -> None:
        build.accum(b, arr, idx, x)

    def _scalar(self, b: Builder, n: str, xs: list[Value], elem: ScalarType) -> Value:
        if n in _SCALAR_BINARY:
            return build.binary(b, _SCALAR_BINARY[n], xs[0], xs[1])
        if n in _MINMAX:
            return build.math(b, _MINMAX[n], xs[0], xs[1])
        if n in array_ops.COMPARE:
            return build.cmp(b, n, xs[0], xs[1])
        if n == "neg":
            return build.neg(b, xs[0])
        if n == "where":
            return build.select(b, xs[0], xs[1], xs[2])
        assert n.startswith("math.")
        return build.math(b, n[5:], *(build.to_float(b, x) for x in xs))  # (np.arctan2 of integers: floats)

    def _reduction(self, b: Builder, op: Op, n: str) -> Value:
        x = op.operands[0]
        t = op.result.type
        elem = _elem(t)
        dims = self.dims(b, x)
        axis = op.attrs.get("axis")
        keep = bool(op.attrs.get("keepdims"))

        def combine(bb: Builder, acc: Value, v: Value) -> Value:
            if n in ("sum", "mean"):
                return build.add(bb, acc, v)
            if n == "prod":
                return build.mul(bb, acc, v)
            return build.math(bb, n, acc, v)

        def first(bb: Builder, idx: list[Value]) -> Value:
            if n in ("sum", "mean"):
                return build.const(bb, 0, elem)
            if n == "prod":
                return build.const(bb, 1, elem)
            if elem.is_float:
                # -inf for max, inf for min (fmax/fmin then give the first element): never the
                # element at 0, which an empty extent does not have (gcc: maybe-uninitialized).
                return build.const(bb, float("-inf") if n == "max" else float("inf"), elem)
            return self.read(bb, x, idx, elem)

        if axis is None:
            zero = build.const(b, 0, I64)
            total = self.reduce(b, dims, first(b, [zero] * len(dims)),
                                lambda bb, iv, acc: combine(bb, acc, self.read(bb, x, iv, elem)))
            if n == "mean":
                count = dims[0]
                for d in dims[1:]:
                    count = build.mul(b, count, d)
                total = build.div(b, total, build.cast(b, count, F64))
            if not keep:
                return total
            one = build.const(b, 1, I64)
            out = self.alloc(b, t, [one] * len(dims), False, op.result.name_hint)
            b.create("store", [out, *[zero] * len(dims), total], [])
            return out
        kept = [d for k, d in enumerate(dims) if k != axis]
        out_dims = [build.const(b, 1, I64) if k == axis else d for k, d in enumerate(dims)] if keep else kept
        out = self.alloc(b, t, out_dims, False, op.result.name_hint)

        def row(bb: Builder, iv: list[Value]) -> None:
            def at(j: Value) -> list[Value]:
                return iv[:axis] + [j] + iv[axis:]

            init = first(bb, at(build.const(bb, 0, I64)))
            total = self.reduce(bb, [dims[axis]], init,
                                lambda b2, jv, acc: combine(b2, acc, self.read(b2, x, at(jv[0]), elem)))
            if n == "mean":
                total = build.div(bb, total, build.cast(bb, dims[axis], F64))
            dst = iv[:axis] + [build.const(bb, 0, I64)] + iv[axis:] if keep else iv
            bb.create("store", [out, *dst, total], [])

        self.loops(b, kept, row)
        return out

    def _scan(self, b: Builder, op: Op, n: str, t: Type, hint: str) -> Value:
        """``cumsum`` (running sums along an axis, from its end when ``reverse``) and
        ``prod_others`` (running products from the start, then times those from the end): one
        loop with a carried accumulator per line of the axis (over the whole array, in row-major
        order, for a ``prod_others`` without an axis)."""
        x = op.operands[0]
        dims = self.dims(b, x)
        out = self.alloc(b, t, dims, False, hint)
        elem = _elem(t)
        axis = op.attrs.get("axis")

        def line(bb: Builder, span: list[Value], at: Callable[[list[Value]], list[Value]]) -> None:
            if n == "cumsum":
                def add(b2: Builder, idx: list[Value], acc: Value) -> Value:
                    new = build.add(b2, acc, self.read(b2, x, at(idx), elem))
                    b2.create("store", [out, *at(idx), new], [])
                    return new
                self._carried(bb, span, build.const(bb, 0, elem), add, bool(op.attrs.get("reverse")))
                return

            def before(b2: Builder, idx: list[Value], acc: Value) -> Value:
                b2.create("store", [out, *at(idx), acc], [])
                return build.mul(b2, acc, self.read(b2, x, at(idx), F64))

            def after(b2: Builder, idx: list[Value], acc: Value) -> Value:
                mine = b2.op1("load", [out, *at(idx)], F64)
                b2.create("store", [out, *at(idx), build.mul(b2, mine, acc)], [])
                return build.mul(b2, acc, self.read(b2, x, at(idx), F64))
            self._carried(bb, span, build.const(bb, 1.0, F64), before, False)
            self._carried(bb, span, build.const(bb, 1.0, F64), after, True)

        if axis is None:
            line(b, dims, lambda iv: iv)
        else:
            kept = [d for k, d in enumerate(dims) if k != axis]
            self.loops(b, kept, lambda bb, iv: line(bb, [dims[axis]], lambda jv: iv[:axis] + jv + iv[axis:]))
        return out

    def _carried(self, b: Builder, span: list[Value], init: Value,
                 step: Callable[[Builder, list[Value], Value], Value], reverse: bool) -> Value:
        """``self.reduce`` over ``span``, visiting the indices from the last when ``reverse``."""
        def visit(bb: Builder, iv: list[Value], acc: Value) -> Value:
            if reverse:
                one = build.const(bb, 1, I64)
                iv = [build.sub(bb, build.sub(bb, d, one), i) for i, d in zip(iv, span)]
            return step(bb, iv, acc)
        return self.reduce(b, span, init, visit)

    def _matmul(self, b: Builder, op: Op) -> Value:
        x, y = op.operands
        t = op.result.type
        rx, ry = _rank(x.type), _rank(y.type)
        dx, dy = self.dims(b, x), self.dims(b, y)
        inner = dx[-1]
        zero = build.const(b, 0.0, F64)

        def dot(bb: Builder, row: list[Value], col: list[Value]) -> Value:
            return self.reduce(bb, [inner], zero, lambda b2, kv, acc: build.add(b2, acc, build.mul(
                b2, self.read(b2, x, row + kv, F64), self.read(b2, y, kv + col, F64))))

        if rx == 1 and ry == 1:
            return dot(b, [], [])
        xd = x.defining_op
        if rx == 2 and ry == 1 and xd is not None and xd in self.fused and xd.name == PREFIX + "transpose":
            # A.T @ g (every adjoint of A @ x): walk A by rows, as it lies in memory, adding
            # each row times g[k] into the result, instead of striding down its columns.
            a = xd.operands[0]
            da = self.dims(b, a)
            out = self.alloc(b, t, [da[1]], True, op.result.name_hint)
            self.loops(b, da, lambda bb, iv: self._add_into(bb, out, iv[1:], build.mul(
                bb, bb.op1("load", [a, *iv], _elem(a.type)), self.read(bb, y, iv[:1], F64))))
            return out
        out_dims = (dx[:1] if rx == 2 else []) + (dy[1:] if ry == 2 else [])
        out = self.alloc(b, t, out_dims, False, op.result.name_hint)

        def body(bb: Builder, iv: list[Value]) -> None:
            row = iv[:1] if rx == 2 else []
            col = iv[len(row):]
            bb.create("store", [out, *iv, dot(bb, row, col)], [])

        self.loops(b, out_dims, body)
        return out

    # -- linear algebra, einsum, stacking (``array_ops.LINALG``; the others are refused, ``refuse``)
    def _einsum(self, b: Builder, op: Op) -> Value:
        """The result's element at the output letters' indices: the sum, over the other letters,
        of the product of the operands' elements at theirs."""
        terms, out = array_ops.einsum_terms(op.attrs["subs"])
        extent: dict[str, Value] = {}
        for term, x in zip(terms, op.operands):
            for c, d in zip(term, self.dims(b, x)):
                extent.setdefault(c, d)
        summed = sorted(set("".join(terms)) - set(out), key="".join(terms).index)

        def element(bb: Builder, at: dict[str, Value]) -> Value:
            prod: Optional[Value] = None
            for term, x in zip(terms, op.operands):
                r = self.read(bb, x, [at[c] for c in term], F64)
                prod = r if prod is None else build.mul(bb, prod, r)
            assert prod is not None
            return prod

        def value(bb: Builder, ivs: list[Value]) -> Value:
            at = dict(zip(out, ivs))
            if not summed:
                return element(bb, at)
            return self.reduce(bb, [extent[c] for c in summed], build.const(bb, 0.0, F64), lambda b2, kv, acc: (
                build.add(b2, acc, element(b2, {**at, **dict(zip(summed, kv))}))))

        if not out:
            return value(b, [])
        dims = [extent[c] for c in out]
        res = self.alloc(b, op.result.type, dims, False, op.result.name_hint)
        self.loops(b, dims, lambda bb, iv: bb.create("store", [res, *iv, value(bb, iv)], []))
        return res

    def _diag(self, b: Builder, op: Op) -> Value:
        v = op.operands[0]
        n = self.dims(b, v)[0]
        out = self.alloc(b, op.result.type, [n, n], True, op.result.name_hint)
        self.loops(b, [n], lambda bb, iv: bb.create("store", [out, iv[0], iv[0], self.read(bb, v, iv, F64)], []))
        return out

    def _tril(self, b: Builder, op: Op) -> Value:
        """``np.tril(A, k)``: the elements on and below the diagonal ``k`` (``j <= i + k``), zeros
        above (``np.triu`` is ``A - np.tril(A, k - 1)``, the front end's)."""
        a = op.operands[0]
        dims = self.dims(b, a)
        out = self.alloc(b, op.result.type, dims, False, op.result.name_hint)
        k = build.const(b, op.attrs.get("k", 0), I64)

        def element(bb: Builder, iv: list[Value]) -> None:
            below = build.cmp(bb, "le", iv[1], build.add(bb, iv[0], k))
            kept = build.select(bb, below, self.read(bb, a, iv, F64), build.const(bb, 0.0, F64))
            bb.create("store", [out, *iv, kept], [])

        self.loops(b, dims, element)
        return out

    def _norm(self, b: Builder, op: Op) -> Value:
        x = op.operands[0]
        dims = self.dims(b, x)
        axis = op.attrs.get("axis")
        zero = build.const(b, 0.0, F64)

        def squares(bb: Builder, idx: list[Value], acc: Value) -> Value:
            e = self.read(bb, x, idx, F64)
            return build.add(bb, acc, build.mul(bb, e, e))

        if axis is None:
            return build.math(b, "sqrt", self.reduce(b, dims, zero, squares))
        kept = dims[:axis] + dims[axis + 1:]
        out = self.alloc(b, op.result.type, kept, False, op.result.name_hint)

        def row(bb: Builder, iv: list[Value]) -> None:
            total = self.reduce(bb, [dims[axis]], zero,
                                lambda b2, kv, acc: squares(b2, iv[:axis] + kv + iv[axis:], acc))
            bb.create("store", [out, *iv, build.math(bb, "sqrt", total)], [])

        self.loops(b, kept, row)
        return out

    def _concat(self, b: Builder, op: Op) -> Value:
        return self._stacked(b, op, op.attrs["axis"], False)

    def _stack(self, b: Builder, op: Op) -> Value:
        return self._stacked(b, op, op.attrs["axis"], True)

    def _stacked(self, b: Builder, op: Op, axis: int, new_axis: bool) -> Value:
        """Each operand copied into its place along ``axis`` (a new axis of extent 1 each for a stack)."""
        parts = list(op.operands)
        shapes = [self.dims(b, v) for v in parts]
        dims = list(shapes[0])
        if new_axis:
            dims.insert(axis, build.const(b, len(parts), I64))
        else:
            total = shapes[0][axis]
            for d in shapes[1:]:
                total = build.add(b, total, d[axis])
            dims[axis] = total
        t = op.result.type
        out = self.alloc(b, t, dims, False, op.result.name_hint)
        offset: Value = build.const(b, 0, I64)
        for k, (v, shape) in enumerate(zip(parts, shapes)):
            start = build.const(b, k, I64) if new_axis else offset

            def put(bb: Builder, iv: list[Value], v: Value = v, start: Value = start) -> None:
                dst = iv[:axis] + [start] + iv[axis:] if new_axis else iv[:axis] + [build.add(
                    bb, start, iv[axis])] + iv[axis + 1:]
                bb.create("store", [out, *dst, self.read(bb, v, iv, _elem(t))], [])

            self.loops(b, shape, put)
            if not new_axis:
                offset = build.add(b, offset, shape[axis])
        return out

    def _roll(self, b: Builder, op: Op) -> Value:
        """Each entry stored ``shift`` places further along the axis, those past the end coming
        back at the start: ``out[(i + shift) mod n] = a[i]`` (Python's mod: a negative shift too)."""
        a, shift = op.operands
        axis, t = op.attrs["axis"], op.result.type
        dims = self.dims(b, a)
        out = self.alloc(b, t, dims, False, op.result.name_hint)

        def put(bb: Builder, iv: list[Value]) -> None:
            at = list(iv)
            at[axis] = build.binary(bb, "mod", build.add(bb, iv[axis], shift), dims[axis])
            bb.create("store", [out, *at, self.read(bb, a, iv, _elem(t))], [])

        self.loops(b, dims, put)
        return out

    def _pad(self, b: Builder, op: Op) -> Value:
        """np.pad: in mode "constant", the value everywhere (zeros, allocated so) and then ``a`` in
        the middle; in the others, each entry a copy of the one of ``a`` it stands for
        (``_pad_source``)."""
        a, mode, t = op.operands[0], op.attrs["mode"], op.result.type
        rank = _rank(a.type)
        widths = list(op.operands[1:1 + 2 * rank])
        inner = self.dims(b, a)
        dims = [build.add(b, build.add(b, widths[2 * k], n), widths[2 * k + 1]) for k, n in enumerate(inner)]
        if mode == "constant":
            value = op.operands[-1]
            zero = build.is_const(value, 0)
            out = self.alloc(b, t, dims, zero, op.result.name_hint)
            if not zero:
                self.loops(b, dims, lambda bb, iv: bb.create("store", [out, *iv, value], []))
            self.loops(b, inner, lambda bb, iv: bb.create("store", [out, *[build.add(
                bb, i, widths[2 * k]) for k, i in enumerate(iv)], self.read(bb, a, iv, _elem(t))], []))
            return out
        for k, n in enumerate(inner):
            self._stop_if_copied_empty(b, n, widths[2 * k], widths[2 * k + 1], k)
        out = self.alloc(b, t, dims, False, op.result.name_hint)
        self._source_loops(b, dims, self._pad_sources(b, mode, widths, inner), lambda bb, iv, at: bb.create(
            "store", [out, *iv, bb.op1("load", [a, *at], _elem(t))], []))
        return out

    @staticmethod
    def _stop_if_copied_empty(b: Builder, n: Value, lo: Value, hi: Value, axis: int) -> None:
        """NumPy refuses to pad an empty axis by copying (there is no entry to copy): the loops
        would read outside the array. The program stops there, as the primal does."""
        if build.is_const(lo, 0) and build.is_const(hi, 0) or build.known_sign(n) > 0:
            return
        zero = build.const(b, 0, I64)
        empty = b.op1("and", [build.cmp(b, "eq", n, zero), build.cmp(b, "gt", build.add(b, lo, hi), zero)], BOOL)
        then, rest = Block(), Block()
        stop = Builder(then, b.loc)
        stop.create("stop", [build.const(stop, 1, I64)], [], {
            "call": "exit", "text": f"np.pad copies entries of an empty axis {axis}", "exception": "ValueError",
            "message": f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'"})
        stop.create("yield", [], [])
        Builder(rest, b.loc).create("yield", [], [])
        b.create("if", [empty], [], regions=[then, rest])

    def _unpad(self, b: Builder, op: Op) -> Value:
        """The adjoint of np.pad's copying modes: each entry of ``g`` added into the entry of the
        unpadded array it is a copy of (``_pad_source``), from zeros."""
        g, t = op.operands[0], op.result.type
        rank = _rank(g.type)
        widths = list(op.operands[1:1 + 2 * rank])
        padded = self.dims(b, g)
        inner = [build.sub(b, build.sub(b, d, widths[2 * k]), widths[2 * k + 1]) for k, d in enumerate(padded)]
        out = self.alloc(b, t, inner, True, op.result.name_hint)
        self._source_loops(b, padded, self._pad_sources(b, op.attrs["mode"], widths, inner),
                           lambda bb, iv, at: self._add_into(bb, out, at, self.read(bb, g, iv, _elem(t))))
        return out

    def _source_loops(self, b: Builder, dims: list[Value], sources: list[Callable[[Builder, Value], Value]],
                      body: Callable[[Builder, list[Value], list[Value]], None]) -> None:
        """``body(builder, indices, source indices)`` inside a nest of loops over ``dims``, each
        loop working out its axis's source index (``_pad_sources``) before the loops inside it."""
        ivs: list[Value] = []
        at: list[Value] = []
        blocks: list[Block] = []
        inner = b
        for k, d in enumerate(dims):
            block = Block([I64], [f"i{k}" if len(dims) > 1 else "i"])
            inner.create("for", [build.const(inner, 0, I64), d, build.const(inner, 1, I64)], [], regions=[block])
            ivs.append(block.args[0])
            blocks.append(block)
            inner = Builder(block, b.loc)
            src = sources[k](inner, block.args[0])
            if not src.name_hint:
                src.name_hint = f"from{k}" if len(dims) > 1 else "source"
            at.append(src)
        body(inner, ivs, at)
        for block in blocks:
            Builder(block).create("yield", [], [])

    @staticmethod
    def _pad_sources(b: Builder, mode: str, widths: list[Value], inner: list[Value]
                     ) -> list[Callable[[Builder, Value], Value]]:
        """Per axis, the index of ``a`` that position ``i`` of np.pad's result copies in ``mode``
        (``array_ops``: with ``j = i - lo`` in an axis of extent ``n``), its loop-invariant parts
        made here."""
        def one(lo: Value, n: Value, axis: str) -> Callable[[Builder, Value], Value]:
            last = build.sub(b, n, build.const(b, 1, I64))
            if mode == "reflect":  # back and forth without repeating an end: period 2n - 2 (1 for n = 1)
                period = build.select(b, build.cmp(b, "gt", n, build.const(b, 1, I64)), build.add(b, last, last),
                                      build.const(b, 1, I64), "period")
                back = period  # the mirror image of phase m >= n is period - m
            elif mode == "symmetric":  # back and forth repeating each end: period 2n
                period = build.add(b, n, n, "period")
                back = build.sub(b, period, build.const(b, 1, I64), "mirror")  # phase m >= n: 2n - 1 - m

            def at(bb: Builder, i: Value) -> Value:
                j = build.sub(bb, i, lo)
                if mode == "edge":
                    low = build.select(bb, build.cmp(bb, "lt", j, build.const(bb, 0, I64)), build.const(bb, 0, I64), j)
                    return build.select(bb, build.cmp(bb, "gt", low, last), last, low)
                if mode == "wrap":
                    return build.binary(bb, "mod", j, n)
                m = build.binary(bb, "mod", j, period, "phase" + axis)
                return build.select(bb, build.cmp(bb, "lt", m, n), m, build.sub(bb, back, m))

            return at

        return [one(widths[2 * k], n, str(k) if len(inner) > 1 else "") for k, n in enumerate(inner)]

    def _reshape(self, b: Builder, op: Op, t: Type, hint: str) -> Value:
        src = op.operands[0]
        dims = list(op.operands[1:])
        sdims = self.dims(b, src)
        out = self.alloc(b, t, dims, False, hint)

        def body(bb: Builder, iv: list[Value]) -> None:
            flat = iv[0]
            for i, d in zip(iv[1:], dims[1:]):
                flat = build.add(bb, build.mul(bb, flat, d), i)
            idx: list[Value] = []
            rest = flat
            for d in reversed(sdims[1:]):
                idx.insert(0, bb.op1("mod", [rest, d], I64))
                rest = bb.op1("floordiv", [rest, d], I64)
            idx.insert(0, rest)
            bb.create("store", [out, *iv, bb.op1("load", [src, *idx], _elem(t))], [])

        self.loops(b, dims, body)
        return out


# The ops of ``array_ops.LINALG`` this pass writes loops for; ``refuse`` reports the others.
_LINALG_LOOPS = ("einsum", "diag", "norm", "concat", "stack", "tril")


def refuse(fn: Function) -> None:
    """A located error for the first op of ``fn`` that C output cannot have yet."""
    for op in fn.walk():
        n = op.name[len(PREFIX):] if op.name.startswith(PREFIX) else None
        if n == "argsort":
            called = op.attrs.get("for") or ("argsort" if op.attrs.get("kind") else "sort")  # (np.median sorts)
            raise error(f"np.{called} is not supported for C output yet", op.loc,
                        hint="use --target py or --target numba")
        if n in ("mask", "accum_mask"):
            raise error("indexing with a boolean array (x[x > 0]) is not supported for C output yet", op.loc,
                        hint="use np.where(mask, x, 0.0) where a sum follows, or --target py or --target numba")
        if n in array_ops.LINALG and n not in _LINALG_LOOPS:
            what = {"det": "np.linalg.det", "inv": "np.linalg.inv", "solve": "np.linalg.solve",
                    "logdet": "np.linalg.slogdet", "detsign": "np.linalg.slogdet", "cholesky": "np.linalg.cholesky",
                    "tril": "np.tril", "eigvalsh": "np.linalg.eigh", "eigvecsh": "np.linalg.eigh"}.get(
                        n, "np.interp" if n.startswith("interp") else "np.convolve")
            raise error(f"{what} is not supported for C output yet (it has no loop form here)", op.loc,
                        hint="use --target py or --target numba")


def _reads_only(op: Op) -> bool:
    """An op that writes no memory (so a fused read may move past it)."""
    if op.regions or op.name in array_ops.ACCUMULATIONS:
        return False
    return is_pure(op) or op.name in ("load", "comment") or (
        array_ops.is_array_op(op.name))
