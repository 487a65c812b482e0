"""Checks that IR is well formed; run after every pass in tests.

``verify_function`` / ``verify_module`` raise ``VerifyError`` listing every problem
found, each naming the function, the op (as the printer writes its line) and
what is wrong. Checked:

* every op name is known (``opdefs.is_known``) and has the region count its kind needs;
* structured dominance: an operand is visible iff it is defined earlier in the
  same block, or is a block argument of that block, or is visible at the op
  that (transitively) owns the block. Values of sibling regions, of later ops,
  of the op's own results and of other functions are not;
* links: ``op.parent``, ``block.parent_op``, results' and block arguments'
  ``owner``/``index``, and use lists both ways (every operand is in its value's
  uses; every use names an op of this function that has the value there);
* terminators: only last in a block; every region ends with the one its owner
  needs (``for`` and ``if`` regions and ``while`` bodies: ``yield``; ``while``
  conditions: ``condition``; the function body: ``return`` of its result types);
* region shapes and types of ``for``/``if``/``while`` and the typing rules of
  every op in ``s2sad.ssa.ops`` (scalar arithmetic, comparisons, ``select``,
  ``math.<fn>`` arity, memory ops against array rank and element type, calls
  against the callee's signature when a module is given, tapes, ``const`` kinds, the
  axis of CUDA thread built-ins).
"""

from __future__ import annotations

from typing import Any, Optional

from . import array_ops, opdefs, ops
from .gpu import AXES as GPU_AXES
from .gpu import BUILTINS as GPU_BUILTINS
from .ir import Block, Function, Module, Op, Value
from .mathfns import MATH
from .printer import Namer, format_op, print_function
from .types import BOOL, I64, STR, ArrayType, ScalarType, Type

__all__ = ["VerifyError", "verify_function", "verify_module"]

# Shown per function before the rest are summarized: the first problems are the useful ones.
_MAX_REPORTED = 20


class VerifyError(Exception):
    """Ill-formed IR; ``errors`` holds one message per problem."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        shown = errors[:_MAX_REPORTED]
        more = len(errors) - len(shown)
        text = "\n".join(shown) + (f"\n... and {more} more problem(s)" if more else "")
        super().__init__(text)


def verify_module(module: Module) -> None:
    """Verify every function of ``module`` (calls are checked against their callees)."""
    errors: list[str] = []
    for key, fn in module.functions.items():
        if key != fn.name:
            errors.append(f"module: function '@{fn.name}' is registered under the name '{key}'")
        errors += _Verifier(fn, module).run()
    if errors:
        raise VerifyError(errors)


def verify_function(fn: Function, module: Optional[Module] = None) -> None:
    """Verify one function; with ``module``, calls must name its functions with matching types."""
    errors = _Verifier(fn, module).run()
    if errors:
        raise VerifyError(errors)


def _is_scalar(t: Type) -> bool:
    return isinstance(t, ScalarType)


def _is_int(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.is_int


def _is_numeric(t: Type) -> bool:
    return isinstance(t, ScalarType) and (t.is_int or t.is_float)


def _types_of(values: list[Value]) -> list[Any]:
    # getattr: a non-Value operand is reported by the scope walk; here it must not crash.
    return [getattr(v, "type", None) for v in values]


def _types(values: list[Value]) -> str:
    return "(" + ", ".join(str(t) for t in _types_of(values)) + ")"


def _type_list(types: list[Type]) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


class _Verifier:
    def __init__(self, fn: Function, module: Optional[Module]):
        self.fn = fn
        self.module = module
        self.errors: list[str] = []
        self._namer: Optional[Namer] = None
        # Filled by the scope walk: every op of the function (by id) and every value it defines.
        self.fn_ops: dict[int, Op] = {}
        self.defined: dict[int, Value] = {}
        self.order: dict[int, int] = {}  # op id -> position in program order

    # -- messages -------------------------------------------------------------------
    @property
    def namer(self) -> Namer:
        """Names as the printer gives them, so messages match ``s2sad ir`` output."""
        if self._namer is None:
            self._namer = Namer()
            try:
                print_function(self.fn, self._namer)
            except Exception:  # noqa: BLE001 - broken IR may not print; names then come in use order
                pass
        return self._namer

    def name(self, v: Value) -> str:
        return self.namer.name(v)

    def describe(self, op: Op) -> str:
        try:
            return format_op(op, self.namer)
        except Exception:  # noqa: BLE001 - e.g. an attribute of an unprintable kind
            return f"{op.name}(...)"

    def error(self, op: Optional[Op], message: str) -> None:
        # The op's printed line carries its @line:col, which points at the source.
        where = f"in '{self.describe(op)}'" if op is not None else "in its signature"
        self.errors.append(f"function @{self.fn.name}: {where}: {message}")

    # -- entry ------------------------------------------------------------------------
    def run(self) -> list[str]:
        fn = self.fn
        if fn.body.parent_op is not None:
            self.error(None, f"the body's parent_op is {fn.body.parent_op!r}, expected None")
        self._number(fn.body)
        self._scopes(fn.body, set())
        self._uses()
        for op in fn.walk():
            self._check_op(op)
        self._check_terminator(fn.body, "return", None)
        ret = fn.body.terminator
        if ret is not None and ret.name == "return":
            if _types_of(ret.operands) != list(fn.result_types):
                self.error(
                    ret,
                    f"returns {_types(ret.operands)} but the function's result types are "
                    f"{_type_list(fn.result_types)}",
                )
        return self.errors

    def _number(self, block: Block) -> None:
        for op in block.ops:
            self.order[id(op)] = len(self.order)
            self.fn_ops[id(op)] = op
            for r in op.regions:
                self._number(r)

    # -- structure and dominance ---------------------------------------------------------
    def _define(self, v: Value, owner: Any, index: int, where: Optional[Op]) -> None:
        kind = "block argument" if isinstance(owner, Block) else "result"
        if v.owner is not owner or v.index != index:
            self.error(where, f"{kind} #{index} {self.name(v)} has wrong owner/index ({v.owner!r}, {v.index})")
        if id(v) in self.defined:
            self.error(where, f"{kind} {self.name(v)} is defined twice")
        self.defined[id(v)] = v

    def _scopes(self, block: Block, visible: set[int]) -> None:
        """Walk in program order, keeping the set of values visible at each op."""
        added: list[int] = []
        parent = block.parent_op
        for i, a in enumerate(block.args):
            self._define(a, block, i, parent)
            visible.add(id(a))
            added.append(id(a))
        for op in block.ops:
            if op.parent is not block:
                self.error(op, "op.parent is not the block that holds it")
            if not opdefs.is_known(op.name):
                self.error(op, f"unknown op '{op.name}'")
            for i, v in enumerate(op.operands):
                if not isinstance(v, Value):
                    self.error(op, f"operand #{i} is not a Value: {v!r}")
                    continue
                if id(v) not in visible:
                    self.error(op, f"operand #{i} {self.name(v)} {self._why_invisible(v, op)}")
                if (op, i) not in v.uses:
                    self.error(op, f"operand #{i} {self.name(v)}: ({op.name}, {i}) is not in its use list")
            for r in op.regions:
                if r.parent_op is not op:
                    self.error(op, "a region's parent_op is not the op that owns it")
                self._scopes(r, visible)
            for i, r in enumerate(op.results):
                self._define(r, op, i, op)
                visible.add(id(r))
                added.append(id(r))
        for key in added:
            visible.discard(key)

    def _why_invisible(self, v: Value, use: Op) -> str:
        if not self._defined_in_fn(v):
            return "is not defined in this function (a value of another function, or of an erased op)"
        if v.is_block_arg:
            if v.owner.parent_op is use:
                return "is a block argument of one of this op's own regions"
            return "is not in scope: it is a block argument of a region that does not enclose this use"
        d = v.defining_op
        if d is use:
            return "is a result of this op itself"
        if any(a is d for a in self._ancestors(use)):
            return f"is a result of the enclosing '{d.name}', which this op is nested in"
        if self.order[id(d)] > self.order[id(use)]:
            return "is used before its definition"
        return "is not in scope: it is defined in a region that does not enclose this use"

    def _defined_in_fn(self, v: Value) -> bool:
        owner = v.owner
        if isinstance(owner, Op):
            return id(owner) in self.fn_ops
        if isinstance(owner, Block):
            return owner is self.fn.body or (owner.parent_op is not None and id(owner.parent_op) in self.fn_ops)
        return False

    @staticmethod
    def _ancestors(op: Op) -> list[Op]:
        out = []
        block = op.parent
        while block is not None and block.parent_op is not None:
            out.append(block.parent_op)
            block = block.parent_op.parent
        return out

    def _uses(self) -> None:
        for v in self.defined.values():
            where = v.defining_op if v.defining_op is not None else v.owner.parent_op
            for use in v.uses:  # (keyed by (op, operand index): never one twice)
                u, i = use
                if id(u) not in self.fn_ops:
                    self.error(
                        where,
                        f"{self.name(v)} is used by a '{u.name}' that is not in this function "
                        "(a detached op still holds its operands?)",
                    )
                elif i >= len(u.operands) or u.operands[i] is not v:
                    self.error(where, f"{self.name(v)} has a stale use: operand #{i} of '{self.describe(u)}' is not it")

    # -- terminators ---------------------------------------------------------------------
    def _check_terminator(self, block: Block, expected: str, owner: Optional[Op]) -> Optional[Op]:
        """Check ``block`` ends with ``expected`` and has no terminator elsewhere; return it."""
        for op in block.ops[:-1]:
            if op.name in ops.TERMINATORS:
                self.error(op, f"terminator '{op.name}' is not the last op of its block")
        last = block.terminator
        what = f"a region of '{owner.name}'" if owner is not None else "the function body"
        if last is None:
            self.error(owner, f"{what} is empty; it must end with '{expected}'")
            return None
        if last.name != expected:
            self.error(last, f"{what} must end with '{expected}', not '{last.name}'")
            return None
        return last

    def _check_yield(self, block: Block, owner: Op, types: list[Type], what: str) -> None:
        y = self._check_terminator(block, "yield", owner)
        if y is not None and _types_of(y.operands) != list(types):
            self.error(y, f"{what} yields {_types(y.operands)}, expected {_type_list(types)}")

    # -- per-op typing ---------------------------------------------------------------------
    def _arity(self, op: Op, operands: Optional[int], results: Optional[int]) -> bool:
        ok = True
        if operands is not None and len(op.operands) != operands:
            self.error(op, f"'{op.name}' takes {operands} operand(s), has {len(op.operands)}")
            ok = False
        if results is not None and len(op.results) != results:
            self.error(op, f"'{op.name}' has {results} result(s), has {len(op.results)}")
            ok = False
        return ok

    def _attr(self, op: Op, key: str, kind: type | tuple[type, ...]) -> Any:
        if key not in op.attrs:
            self.error(op, f"'{op.name}' needs attribute '{key}'")
            return None
        value = op.attrs[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self.error(op, f"attribute '{key}' = {value!r} has the wrong kind")
            return None
        return value

    def _indices(self, op: Op, idx: list[Value], rank: int) -> None:
        if len(idx) != rank:
            self.error(op, f"'{op.name}' of a rank-{rank} array needs {rank} index(es), has {len(idx)}")
        for k, v in enumerate(idx):
            if not _is_int(v.type):
                self.error(op, f"index #{k} {self.name(v)} is {v.type}, not an integer")

    def _array(self, op: Op, v: Value, what: str = "operand #0") -> Optional[ArrayType]:
        if not isinstance(v.type, ArrayType):
            self.error(op, f"{what} {self.name(v)} of '{op.name}' is {v.type}, not an array")
            return None
        return v.type

    def _check_op(self, op: Op) -> None:
        name = op.name
        if not opdefs.is_known(name) or not all(isinstance(v, Value) for v in op.operands):
            return  # already reported by the scope walk; typing it would only add noise
        want = opdefs.op_def(name).regions
        if len(op.regions) != want:
            self.error(op, f"'{name}' has {len(op.regions)} region(s), needs {want}")
            return
        check = getattr(self, "_op_" + name.replace(".", "_"), None)
        if array_ops.is_array_op(name):
            check = self._op_array
        elif name.startswith("math."):
            check = self._op_math
        elif name in ops.BINARY_ARITH:
            check = self._op_arith
        elif name in ops.BITWISE:
            check = self._op_bitwise
        elif name in ops.COMPARE:
            check = self._op_compare
        elif name in ops.BOOL_OPS:
            check = self._op_bool
        elif name in GPU_BUILTINS:
            check = self._op_gpu
        if check is not None:
            check(op)

    def _op_array(self, op: Op) -> None:
        if op.name == array_ops.PREFIX + "accum":
            if self._arity(op, 2, 0):
                dst = self._array(op, op.operands[0])
                v = op.operands[1].type
                if dst is not None and v != dst and v != dst.elem:
                    self.error(op, f"'arr.accum' adds {v} into {dst}")
            return
        # An adjoint's accumulation into part of an array: its value must have the type of the part
        # the op it undoes reads (dst's operands after it; a slice's bounds come after the value).
        reads = {"accum_mask": ("mask", "where a mask picks"), "accum_take": ("take", "at indices that give"),
                 "accum_slice": ("slice", "into a slice that is")}
        kind = reads.get(op.name[len(array_ops.PREFIX):]) if op.name.startswith(array_ops.PREFIX) else None
        if kind is not None:
            if len(op.operands) >= 2 and self._arity(op, None, 0):
                if kind[0] == "slice":
                    dst, v, *part = op.operands
                else:
                    dst, *part, v = op.operands
                read = array_ops.PREFIX + kind[0]
                want = array_ops.result_type(read, [dst.type, *(p.type for p in part)], op.attrs)
                if isinstance(want, str):
                    self.error(op, want.replace(f"'{read}'", f"'{op.name}'"))
                elif v.type != want:
                    self.error(op, f"'{op.name}' adds {v.type} {kind[1]} {want}")
            return
        if not self._arity(op, None, 1):
            return
        want = array_ops.result_type(op.name, [v.type for v in op.operands], op.attrs)
        if isinstance(want, str):
            self.error(op, want)
        elif op.result.type != want:
            self.error(op, f"'{op.name}' of {_types(op.operands)} gives {want}, not {op.result.type}")
        if op.name == array_ops.PREFIX + "sum_to":
            keep = self._attr(op, "keep", list)
            if keep is not None and not all(isinstance(k, int) for k in keep):
                self.error(op, f"'arr.sum_to' keep = {keep!r} must list axes")

    def _op_arith(self, op: Op) -> None:
        if self._arity(op, 2, 1):
            a, b = op.operands
            r = op.result
            if not (a.type == b.type == r.type):
                self.error(op, f"operands and result must share one type, have {_types([a, b])} -> {r.type}")
            elif not _is_numeric(r.type):
                self.error(op, f"'{op.name}' needs int or float operands, has {r.type}")

    def _op_bitwise(self, op: Op) -> None:
        if self._arity(op, 2, 1):
            a, b = op.operands
            if not (a.type == b.type == op.result.type and _is_int(a.type)):
                self.error(op, f"'{op.name}' is (int, int) -> int of one type, has {_types([a, b])} -> "
                           f"{op.result.type}")

    def _op_bitnot(self, op: Op) -> None:
        if self._arity(op, 1, 1) and not (op.operands[0].type == op.result.type and _is_int(op.result.type)):
            self.error(op, f"'bitnot' is int -> int, has {_types(op.operands)} -> {op.result.type}")

    def _op_neg(self, op: Op) -> None:
        if self._arity(op, 1, 1):
            if op.operands[0].type != op.result.type:
                self.error(op, f"operand {op.operands[0].type} and result {op.result.type} differ")
            elif not _is_numeric(op.result.type):
                self.error(op, f"'neg' needs an int or float operand, has {op.result.type}")

    def _op_compare(self, op: Op) -> None:
        if self._arity(op, 2, 1):
            a, b = op.operands
            if a.type != b.type or not _is_scalar(a.type):
                self.error(op, f"comparison needs two scalars of one type, has {_types([a, b])}")
            if op.result.type != BOOL:
                self.error(op, f"comparison result is {op.result.type}, must be bool")

    def _op_not(self, op: Op) -> None:
        if self._arity(op, 1, 1) and not (op.operands[0].type == op.result.type == BOOL):
            self.error(op, f"'not' is bool -> bool, has {_types(op.operands)} -> {op.result.type}")

    def _op_bool(self, op: Op) -> None:
        if self._arity(op, 2, 1) and not (op.operands[0].type == op.operands[1].type == op.result.type == BOOL):
            self.error(op, f"'{op.name}' is (bool, bool) -> bool, has {_types(op.operands)} -> {op.result.type}")

    def _op_select(self, op: Op) -> None:
        if self._arity(op, 3, 1):
            c, a, b = op.operands
            if c.type != BOOL:
                self.error(op, f"'select' condition {self.name(c)} is {c.type}, must be bool")
            if not (a.type == b.type == op.result.type):
                self.error(op, f"'select' arms and result must share one type, have {_types([a, b])} -> "
                           f"{op.result.type}")

    def _op_cast(self, op: Op) -> None:
        if self._arity(op, 1, 1) and not (_is_scalar(op.operands[0].type) and _is_scalar(op.result.type)):
            self.error(op, f"'cast' converts scalars, has {op.operands[0].type} -> {op.result.type}")

    def _op_const(self, op: Op) -> None:
        if not self._arity(op, 0, 1):
            return
        t = op.result.type
        if not _is_scalar(t):
            self.error(op, f"'const' result is {t}, not a scalar")
            return
        if "value" not in op.attrs:
            self.error(op, "'const' needs attribute 'value'")
            return
        value = op.attrs["value"]
        assert isinstance(t, ScalarType)
        if t.is_float:
            ok = isinstance(value, float)
        elif t.is_int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif t == STR:
            ok = isinstance(value, str)
        else:
            ok = isinstance(value, bool)
        if not ok:
            self.error(op, f"'const' value {value!r} ({type(value).__name__}) does not match its type {t}")

    def _op_undef(self, op: Op) -> None:
        self._arity(op, 0, 1)

    def _op_math(self, op: Op) -> None:
        fn = op.name[len("math."):]  # known: is_known accepts only math.<fn> of MATH_FNS
        if self._arity(op, ops.MATH_FNS[fn], 1):
            r = op.result.type
            ints = MATH[fn].int_operands  # ldexp(x, n): n is an integer
            if any(v.type != r for k, v in enumerate(op.operands) if k not in ints):
                self.error(op, f"operands and result must share one type, have {_types(op.operands)} -> {r}")
            elif any(not _is_int(op.operands[k].type) for k in ints):
                self.error(op, f"operand #{ints[0]} of '{op.name}' must be an integer, is {op.operands[ints[0]].type}")
            elif not _is_numeric(r):
                self.error(op, f"'{op.name}' needs int or float operands, has {r}")

    def _op_load(self, op: Op) -> None:
        if not op.operands:
            self.error(op, "'load' needs an array operand")
            return
        self._arity(op, None, 1)
        arr = self._array(op, op.operands[0])
        if arr is None:
            return
        self._indices(op, op.operands[1:], arr.rank)
        if len(op.results) == 1 and op.result.type != arr.elem:
            self.error(op, f"'load' from {arr} gives {arr.elem}, result is {op.result.type}")

    def _op_store(self, op: Op) -> None:
        self._arity(op, None, 0)
        if len(op.operands) < 2:
            self.error(op, f"'{op.name}' needs an array, its indices and a value")
            return
        arr = self._array(op, op.operands[0])
        if arr is None:
            return
        self._indices(op, op.operands[1:-1], arr.rank)
        value = op.operands[-1]
        if value.type != arr.elem:
            self.error(op, f"'{op.name}' of {value.type} value {self.name(value)} into {arr}")

    _op_accum = _op_store  # arr[idx] += value: the operands of a store

    def _op_alloc(self, op: Op) -> None:
        if not self._arity(op, None, 1):
            return
        t = op.result.type
        if not isinstance(t, ArrayType):
            self.error(op, f"'alloc' result is {t}, not an array")
            return
        self._indices(op, op.operands, t.rank)
        fill = self._attr(op, "fill", str)
        if fill is not None and fill not in ("zeros", "empty"):
            self.error(op, f"'alloc' fill must be \"zeros\" or \"empty\", is {fill!r}")
        for flag in ("cache", "table"):
            if flag in op.attrs:
                self._attr(op, flag, bool)
        elem = self._attr(op, "elem", str)
        if elem is not None and elem != str(t.elem):
            self.error(op, f"'alloc' elem = {elem!r} but the result is {t}")

    def _op_copy(self, op: Op) -> None:
        # copy(x) is the whole array, copy(x, n) its first n rows (x[:n]: a snapshot of the rows a
        # callee may touch, adjoint/forward.py)
        if not self._arity(op, len(op.operands) if len(op.operands) in (1, 2) else 1, 1):
            return
        arr = self._array(op, op.operands[0])
        if arr is not None and op.result.type != arr:
            self.error(op, f"'copy' of {arr} gives {op.result.type}")
        if len(op.operands) == 2 and not _is_int(op.operands[1].type):
            self.error(op, f"'copy' takes a row count of an integer type, not {op.operands[1].type}")

    def _op_view(self, op: Op) -> None:
        if not self._arity(op, 2, 1):
            return
        arr = self._array(op, op.operands[0])
        off = op.operands[1]
        if off.type != I64:
            self.error(op, f"'view' offset {self.name(off)} is {off.type}, must be i64")
        row = ArrayType(arr.elem, arr.rank - 1) if arr is not None and arr.rank > 1 else None
        if arr is not None and op.result.type not in (arr, row):
            self.error(op, f"'view' of {arr} gives {op.result.type}")

    def _op_field(self, op: Op) -> None:
        if not self._arity(op, None, 1):
            return
        for v in op.operands:
            if not v.type.is_int:
                self.error(op, f"'field' operand {self.name(v)} is {v.type}, must be an integer")
        coefs = self._attr(op, "coefs", list)
        if coefs is not None and len(coefs) != len(op.operands):
            self.error(op, f"'field' has {len(op.operands)} operand(s) but {len(coefs)} coefficient(s)")
        if not op.operands:
            self.error(op, "'field' needs the struct's index")
        for key, kind in (("offset", int), ("path", str), ("struct", str)):
            self._attr(op, key, kind)
        if op.result.type != I64:
            self.error(op, f"'field' result is {op.result.type}, must be i64")

    def _op_gpu(self, op: Op) -> None:
        if not self._arity(op, 0, 1):
            return
        axis = self._attr(op, "axis", str)
        if axis is not None and axis not in GPU_AXES:
            self.error(op, f"'{op.name}' axis {axis!r} is not one of x, y, z")
        if op.result.type != I64:
            self.error(op, f"'{op.name}' result is {op.result.type}, must be i64")

    def _op_gpu_sync(self, op: Op) -> None:
        self._arity(op, 0, 0)

    def _op_dim(self, op: Op) -> None:
        if not self._arity(op, 1, 1):
            return
        arr = self._array(op, op.operands[0])
        axis = self._attr(op, "axis", int)
        if arr is not None and axis is not None and not 0 <= axis < arr.rank:
            self.error(op, f"'dim' axis {axis} is out of range for {arr}")
        if op.result.type != I64:
            self.error(op, f"'dim' result is {op.result.type}, must be i64")

    def _op_call(self, op: Op) -> None:
        callee = self._attr(op, "callee", str)
        if callee is None or self.module is None:
            return
        target = self.module.functions.get(callee)
        if target is None:
            self.error(op, f"calls '@{callee}', which is not a function of the module")
            return
        params = [p.type for p in target.params]
        if [v.type for v in op.operands] != params:
            self.error(op, f"arguments {_types(op.operands)} do not match @{callee}'s parameters {_type_list(params)}")
        if [r.type for r in op.results] != list(target.result_types):
            self.error(
                op,
                f"results {_types(op.results)} do not match @{callee}'s result types "
                f"{_type_list(target.result_types)}",
            )

    def _op_extern(self, op: Op) -> None:
        self._attr(op, "callee", str)
        self._attr(op, "prototype", str)
        texts = self._attr(op, "args", list)
        if texts is not None and len(texts) != len(op.operands):
            self.error(op, f"'extern' has {len(op.operands)} operand(s) but {len(texts)} argument text(s)")
        if len(op.results) > 1 or any(not isinstance(r.type, ScalarType) for r in op.results):
            self.error(op, f"'extern' gives at most one scalar, has {_types(op.results)}")

    def _op_comment(self, op: Op) -> None:
        self._arity(op, 0, 0)
        self._attr(op, "text", str)

    def _tape(self, op: Op, v: Value) -> Optional[ArrayType]:
        t = self._array(op, v, "tape")
        if t is not None and t.rank != 1:
            self.error(op, f"a tape is a rank-1 array, {self.name(v)} is {t}")
            return None
        return t

    def _op_tape_new(self, op: Op) -> None:
        if not self._arity(op, 1, 1):
            return
        if not _is_int(op.operands[0].type):
            self.error(op, f"'tape.new' capacity is {op.operands[0].type}, not an integer")
        t = op.result.type
        if not isinstance(t, ArrayType) or t.rank != 1:
            self.error(op, f"'tape.new' result is {t}, must be a rank-1 array")
            return
        elem = self._attr(op, "elem", str)
        if elem is not None and elem != str(t.elem):
            self.error(op, f"'tape.new' elem = {elem!r} but the result is {t}")
        self._attr(op, "grow", bool)

    def _op_tape_push(self, op: Op) -> None:
        if self._arity(op, 2, 0):
            t = self._tape(op, op.operands[0])
            if t is not None and op.operands[1].type != t.elem:
                self.error(op, f"pushes a {op.operands[1].type} onto a tape of {t.elem}")

    def _op_tape_pop(self, op: Op) -> None:
        if self._arity(op, 1, 1):
            t = self._tape(op, op.operands[0])
            if t is not None and op.result.type != t.elem:
                self.error(op, f"pops a {op.result.type} from a tape of {t.elem}")

    # -- control flow ----------------------------------------------------------------------
    def _op_for(self, op: Op) -> None:
        if len(op.operands) < 3:
            self.error(op, "'for' needs operands (lb, ub, step, inits...)")
            return
        for k, what in enumerate(("lower bound", "upper bound", "step")):
            if op.operands[k].type != I64:
                self.error(op, f"'for' {what} {self.name(op.operands[k])} is {op.operands[k].type}, must be i64")
        inits = [v.type for v in op.operands[3:]]
        results = [r.type for r in op.results]
        body = op.regions[0]
        args = [a.type for a in body.args]
        if results != inits:
            self.error(op, f"'for' results {_type_list(results)} differ from its inits {_type_list(inits)}")
        if not args or args[0] != I64:
            self.error(op, f"'for' body arguments {_type_list(args)} must start with the i64 induction variable")
        elif args[1:] != inits:
            self.error(op, f"'for' carried arguments {_type_list(args[1:])} differ from its inits {_type_list(inits)}")
        self._check_yield(body, op, inits, "'for' body")

    def _op_if(self, op: Op) -> None:
        if len(op.operands) != 1 or op.operands[0].type != BOOL:
            self.error(op, f"'if' takes one bool condition, has {_types(op.operands)}")
        results = [r.type for r in op.results]
        for k, region in enumerate(op.regions):
            side = "then" if k == 0 else "else"
            if region.args:
                self.error(op, f"'if' {side} region must have no arguments, has {_types(region.args)}")
            self._check_yield(region, op, results, f"'if' {side} region")

    def _op_while(self, op: Op) -> None:
        carried = [v.type for v in op.operands]
        results = [r.type for r in op.results]
        if results != carried:
            self.error(op, f"'while' results {_type_list(results)} differ from its inits {_type_list(carried)}")
        cond, body = op.regions
        for region, what in ((cond, "condition"), (body, "body")):
            args = [a.type for a in region.args]
            if args != carried:
                self.error(op, f"'while' {what} arguments {_type_list(args)} differ from its inits "
                           f"{_type_list(carried)}")
        c = self._check_terminator(cond, "condition", op)
        if c is not None and _types_of(c.operands) != [BOOL]:
            self.error(c, f"'condition' takes one bool, has {_types(c.operands)}")
        self._check_yield(body, op, carried, "'while' body")

    def _op_yield(self, op: Op) -> None:
        self._arity(op, None, 0)
        owner = op.parent.parent_op if op.parent is not None else None
        if owner is None or owner.name not in ops.CONTROL_FLOW:
            self.error(op, "'yield' outside a region of for/if/while")
        elif owner.name == "while" and op.parent is owner.regions[0]:
            self.error(op, "a 'while' condition region ends with 'condition', not 'yield'")

    def _op_condition(self, op: Op) -> None:
        self._arity(op, None, 0)
        owner = op.parent.parent_op if op.parent is not None else None
        if owner is None or owner.name != "while" or op.parent is not owner.regions[0]:
            self.error(op, "'condition' outside the condition region of a 'while'")

    def _op_return(self, op: Op) -> None:
        self._arity(op, None, 0)
        if op.parent is not self.fn.body:
            self.error(op, "'return' outside the function body (early returns are lowered to flags)")
