"""Constant folding and algebraic simplification.

What, per op, walking every block in program order (so operands are folded before
their users):

* a pure scalar op (arithmetic, comparison, ``not``/``and``/``or``, ``neg``,
  ``cast``, ``math.<fn>``) whose operands are all ``const`` becomes a ``const``
  of what the reference interpreter (``s2sad.ssa.interp``) computes, using the
  same Python functions. A fold is skipped when the computation raises (``1 / 0``,
  ``math.log(-1.0)``), when its raw result is of another kind than the op's type
  (``2 ** -1`` on ints is ``0.5``; ``(-8.0) ** 0.5`` is complex), when a float
  result is not finite (no ``inf``/``nan`` literals in emitted code; the run-time
  behaviour stays where it was) or an int result does not fit its width (C would
  wrap);
* identities: ``x + 0``, ``0 + x``, ``x - 0``, ``x * 1``, ``1 * x``, ``x ** 1``,
  ``x / 1`` (floats: on ints ``div`` is true division), ``x // 1`` (ints: on
  floats it is ``floor``), ``-(-x)``, ``not(not b)``, ``and``/``or`` with a
  ``true``/``false`` operand or twice the same operand, ``select(true, a, b)``,
  ``select(c, a, a)``, a ``cast`` to the type it already has, a ``view`` at
  offset 0 (the array itself: same memory, same elements); and, on integers
  only, ``x - x -> 0``, ``x * 0 -> 0``, ``0 * x -> 0`` and comparisons of a value
  with itself (``x == x`` is false for a float NaN, ``x * 0.0`` is NaN for an
  infinite ``x``, ``inf - inf`` is NaN: these stay for floats);
* ``if`` with a constant condition: the taken region's ops move into the parent
  block in place of the ``if``, whose results become the region's yielded values;
  any other ``if``: a result that both branches yield as one value made before the
  ``if``, or as equal constants, becomes that value (as ``select(c, a, a)`` does); an
  ``if`` whose branches compute nothing but constants and yield numbers becomes a
  ``select`` per result (``selects``);
* ``for`` with constant bounds and step whose trip count is 0: its results become
  its initial values;
* ``while`` whose condition is a constant false: its body never runs; the
  condition region's ops (run once, on the initial values) move into the parent
  block, and the loop's results become its initial values. (Such a loop would
  otherwise stay in the gradient with tapes nothing can push to; a C compiler
  that sees as much warns about the reverse sweep's pops.)
* a view of a view is one view of the base: ``view(view(a, j), k)`` becomes
  ``view(a, j + k)`` (not for rows: ``A[i][k:]`` is no offset of ``A``);
* an ``accum`` of ``-0.0`` adds nothing: it becomes ``d[idx] = d[idx]``, the copy that the
  fold of ``d[idx] + -0.0`` leaves (``fold_accum`` says why it is not erased).

One liberty, the one ``s2sad.ssa.build`` takes when creating IR: ``x + 0.0`` (and
``x - (-0.0)``) is folded to ``x`` for floats although ``-0.0 + 0.0`` is ``+0.0``;
the sign of a zero sum is visible only through ``copysign``/``atan2``/division by
it, and the output must not read ``x + 0.0``. ``x + (-0.0)``, ``x - 0.0``,
``x * 1.0``, ``x / 1.0`` and ``x ** 1.0`` are exact.

Names: a result that folds to a value without a ``name_hint`` gives it its hint;
a new ``const`` takes the folded op's hint and location.

Dead code: the ops that folding left without uses (the ``0`` of ``x + 0``, the
condition of a folded ``if``) are erased; ops that were dead before are left to DCE.

Follows the classic constant folding and peephole algebraic simplification of
compilers (Aho, Lam, Sethi & Ullman, "Compilers", 2nd ed., 8.5 and 9.4), as in
MLIR's canonicalizer folders (``OpFoldResult``: an op folds to an attribute or to
an existing value) and its ``scf.if`` / ``scf.for`` canonicalizations.

Pre: verified IR. Post: verified IR that computes the same results and memory.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Union

import numpy as np

from ..analysis.effects import PassContext
from ..ssa import ops
from ..ssa.opdefs import is_pure
from ..ssa.build import accum, add, const_value, is_zero_of_sign, macro_attrs
from ..ssa.interp import _BINARY, _MATH, too_wide  # the interpreter's own functions: folding must agree with it
from ..ssa.ir import Block, Builder, Function, Module, Op, Value
from ..ssa.types import BOOL, F32, F64, I32, I64, STR, ScalarType, Type

Number = Union[int, float, bool]

# Bounds of the integer types: a fold whose result does not fit would wrap in C.
_INT_RANGE = {"i64": (-(2**63), 2**63 - 1), "i32": (-(2**31), 2**31 - 1)}

# Ops folded when every operand is a constant.
_EVALUATED = set(ops.BINARY_ARITH + ops.COMPARE + ops.BOOL_OPS) | {"neg", "not", "cast"} | {
    f"math.{fn}" for fn in ops.MATH_FNS
}


# -- constants as the interpreter sees them ---------------------------------------------


def _runtime(t: Type, value: Any) -> Any:
    """``value`` converted as the interpreter converts a value of type ``t`` (``_scalar``)."""
    assert isinstance(t, ScalarType)
    if t.is_float:
        return float(value) if t.name == "f64" else np.float32(value)
    if t.is_int:
        return int(value)
    return value if t == STR else bool(value)


def _literal(t: Type, raw: Any, converting: bool) -> Optional[Number]:
    """The ``const`` value for a computed ``raw`` result of type ``t``; None to skip the fold.

    ``converting`` (a ``cast``): any scalar kind converts, as in the interpreter.
    Otherwise the raw result must already be of the type's kind; floats that come
    back as ints (``math.floor``) are accepted since the interpreter converts them.
    """
    assert isinstance(t, ScalarType)
    is_bool = isinstance(raw, (bool, np.bool_))
    is_int = isinstance(raw, (int, np.integer)) and not is_bool
    is_float = isinstance(raw, (float, np.floating))
    if not (is_bool or is_int or is_float):
        return None  # complex, or something stranger
    if t.is_float:
        if not converting and not (is_float or is_int):
            return None
        value = float(_runtime(t, raw))
        return value if math.isfinite(value) else None
    if t.is_int:
        if not converting and not is_int:
            return None
        value = int(raw)
        low, high = _INT_RANGE[t.name]
        return value if low <= value <= high else None
    if not converting and not is_bool:
        return None
    return bool(raw)


def _evaluate(op: Op, values: list[Number]) -> Optional[Number]:
    """What the interpreter computes for ``op`` on constant operands; None when it must not fold."""
    name = op.name
    args = [_runtime(v.type, c) for v, c in zip(op.operands, values)]
    if len(args) == 2 and too_wide(name, *args, 64):
        return None  # past every integer type the IR has: the fold would be refused, so skip computing it
    try:
        # f32 arithmetic is NumPy's: make its overflow and invalid cases raise like Python's do.
        with np.errstate(all="raise"):
            if name in _BINARY:
                raw = _BINARY[name](*args)
            elif name == "neg":
                raw = -args[0]
            elif name == "not":
                raw = not args[0]
            elif name == "cast":
                raw = args[0]
            else:
                raw = _MATH[name[len("math."):]](*args)
            return _literal(op.result.type, raw, converting=name == "cast")
    except (ArithmeticError, ValueError, TypeError, FloatingPointError):
        return None


# -- identities -------------------------------------------------------------------------


def _is_number(v: Value, n: int) -> bool:
    c = const_value(v)
    return c is not None and not isinstance(c, bool) and c == n


def _is_bool(v: Value, b: bool) -> bool:
    c = const_value(v)
    return isinstance(c, bool) and c is b


def _is_int(v: Value) -> bool:
    t = v.type
    return isinstance(t, ScalarType) and (t.is_int or t.is_bool)


def _inner(v: Value, name: str) -> Optional[Value]:
    """The operand of ``v``'s defining op when that op is ``name`` (``neg``, ``not``)."""
    d = v.defining_op
    return d.operands[0] if d is not None and d.name == name else None


def _simplify(op: Op) -> Union[Value, Number, None]:
    """An existing value or a literal ``op`` is equal to by an algebraic identity, or None."""
    name, a = op.name, op.operands
    if name == "add":  # signed zeros: see build.is_zero_of_sign
        x, y = a
        if is_zero_of_sign(y, negative=True):
            return x
        if is_zero_of_sign(x, negative=True):
            return y
    elif name == "sub":
        x, y = a
        if is_zero_of_sign(y, negative=False):
            return x
        if x is y and _is_int(x):
            return 0
    elif name == "mul":
        x, y = a
        if _is_number(y, 1):
            return x
        if _is_number(x, 1):
            return y
        if _is_int(x) and (_is_number(x, 0) or _is_number(y, 0)):
            return 0
    elif name == "div":
        if a[0].type.is_float and _is_number(a[1], 1):
            return a[0]
    elif name == "floordiv":
        if _is_int(a[0]) and _is_number(a[1], 1):
            return a[0]
    elif name == "pow":
        if _is_number(a[1], 1):
            return a[0]
    elif name in ("neg", "not"):
        return _inner(a[0], name)
    elif name in ("and", "or"):
        x, y = a
        unit, absorbing = name == "and", name == "or"  # and(true, b) = b; and(false, b) = false
        if _is_bool(x, unit) or x is y:
            return y
        if _is_bool(y, unit):
            return x
        if _is_bool(x, absorbing) or _is_bool(y, absorbing):
            return absorbing
    elif name == "select":
        c, x, y = a
        if x is y:
            return x
        if _is_bool(c, True):
            return x
        if _is_bool(c, False):
            return y
    elif name == "cast":
        if a[0].type == op.result.type:
            return a[0]
    elif name == "view":
        if (_is_number(a[1], 0) or _whole_struct(a[1]) is not None and _field_constant(a[1]) == 0) \
                and op.result.type == a[0].type:  # not a row, nor the first member of struct 0 (&p->r[0])
            return a[0]
    elif name in ops.COMPARE:
        if a[0] is a[1] and _is_int(a[0]):
            return name in ("eq", "le", "ge")
    return None


def _same_rank(view: Op) -> bool:
    """Whether a ``view`` is ``arr[off:]``, not the row ``arr[i]``."""
    return view.result.type == view.operands[0].type


def _same_constant(a: Value, b: Value) -> bool:
    """Two ``const`` ops of one type and one value, spelled alike (``0.0`` is not ``-0.0``)."""
    ops_ = (a.defining_op, b.defining_op)
    return (all(o is not None and o.name == "const" for o in ops_) and a.type == b.type
            and ops_[0].attrs == ops_[1].attrs and repr(const_value(a)) == repr(const_value(b)))


def _field_constant(v: Value) -> Optional[int]:
    """The value of a ``field`` op whose operands are all constants (None otherwise).

    Such an op is not folded to its number (``p->k`` would print as ``p[1]``), but
    a view at struct 0 (``&bodies[0]``) is the array itself.
    """
    op = v.defining_op
    if op is None or op.name != "field":
        return None
    values = [const_value(o) for o in op.operands]
    if any(x is None for x in values):
        return None
    return ops.field_value(op.attrs, values)  # type: ignore[arg-type]


def _whole_struct(v: Value) -> Optional[Op]:
    """The ``field`` op that gives ``v`` when it is the offset of a whole struct (``bodies + i``)."""
    op = v.defining_op
    if op is not None and op.name == "field" and op.attrs["path"] == "" and op.attrs["offset"] == 0:
        return op
    return None


# -- the pass ---------------------------------------------------------------------------


_SELECTABLE = (F64, F32, I64, I32, BOOL)  # (not a string, a request, a communicator or an array)


def _known_in_branch(op: Op) -> Optional[bool]:
    """The value of the condition of the ``if`` op ``op`` where an ``if`` around it tests the same
    value (or its ``not``): true in that one's first branch, false in its other (a helper's
    ``if t < -1.0`` inlined in the ``else`` of its caller's ``if v < -1.0``, CSE having made the
    two tests one value). None where no ``if`` around it tells."""
    cond, negated = _tested(op.operands[0])
    block = op.parent
    while block is not None and block.parent_op is not None:
        outer = block.parent_op
        if outer.name == "if":
            test, flipped = _tested(outer.operands[0])
            if test is cond:
                return ((block is outer.regions[0]) != flipped) != negated
        block = outer.parent
    return None


def _tested(cond: Value) -> tuple[Value, bool]:
    """The value a condition tests, and whether it tests its ``not``."""
    inner = _inner(cond, "not")
    return (cond, False) if inner is None else (inner, True)


class _Folder:
    def __init__(self) -> None:
        self.changed = False
        # Ops whose results may have lost their last use: erased at the end if so.
        self.maybe_dead: list[Op] = []

    def run(self, fn: Function) -> None:
        self.changed = True
        while self.changed:  # one sweep reaches the fixpoint; the loop only guards that claim
            self.changed = False
            self.block(fn.body)
        self.erase_dead(fn)

    def block(self, block: Block) -> None:
        i = 0
        while i < len(block.ops):
            op = block.ops[i]
            regions = op.regions
            if op.name == "while":
                # Its condition first: the loop folds when that folds to a constant.
                self.block(regions[0])
                regions = regions[1:]
            if self.fold(op):
                # ``op`` is gone; whatever took its place (a new const, the ops of an
                # inlined region) now starts at ``i`` and is visited next.
                self.changed = True
                continue
            for region in regions:
                self.block(region)
            i += 1

    def fold(self, op: Op) -> bool:
        """Fold ``op`` away if possible; True when it was removed."""
        if op.name == "if":
            return self.fold_if(op)
        if op.name == "for":
            return self.fold_for(op)
        if op.name == "while":
            return self.fold_while(op)
        if op.name == "view" and self.fold_view(op):
            return True
        if op.name == "accum":
            return self.fold_accum(op)
        if op.name == "tape.pop":
            self.fold_pop(op)
            return False
        if op.name == "dim" and self.fold_dim(op):
            return True
        if not is_pure(op) or op.name in ("const", "undef"):
            return False
        result: Union[Value, Number, None] = None
        values = [const_value(v) for v in op.operands]
        if op.name == "select" and values[0] is not None:
            result = op.operands[1] if values[0] else op.operands[2]
        elif op.name in _EVALUATED and op.operands and all(c is not None for c in values):
            result = _evaluate(op, values)  # type: ignore[arg-type]
        if result is None:
            result = _simplify(op)
        if result is None:
            return False
        if not isinstance(result, Value):
            t = op.result.type
            result = Builder(op.parent).before_op(op).op1("const", [], t, op.result.name_hint, value=result,
                                                          **macro_attrs(op.name, *op.operands))
            result.defining_op.loc = op.loc
        self.replace(op, [result])
        return True

    def fold_accum(self, op: Op) -> bool:
        """``d[idx] += -0.0`` adds nothing: ``build.accum`` spells it as the copy ``d[idx] = d[idx]``
        that folding ``d[idx] + -0.0`` made of the load, add and store reverse mode wrote before
        the ``accum`` op, so that the output stays as it was."""
        if not is_zero_of_sign(op.operands[-1], negative=True):
            return False
        arr, *idx, x = op.operands
        accum(Builder(op.parent, op.loc).before_op(op), arr, idx, x)
        self.replace(op, [])
        return True

    def fold_dim(self, op: Op) -> bool:
        """The extent of an array ``alloc`` made is the extent it was made with (``dim(alloc(2, 2),
        1)`` is ``2``), a copy's its original's (or the rows it took): a local matrix's extents,
        read where the reverse sweep makes it again, are then constants, not taped values."""
        arr, axis = op.operands[0], op.attrs["axis"]
        extent = ops.made_extent(arr, axis)  # (made before the array: visible at the dim)
        if extent is not None:
            self.replace(op, [extent])
            return True
        made = arr.defining_op
        if made is not None and made.name == "copy" and made.operands[0].type == arr.type:
            # a copy of an array made elsewhere: its original's extent, asked of the original
            self.replace(op, [Builder(op.parent, op.loc).before_op(op).op1(
                "dim", [made.operands[0]], op.result.type, op.result.name_hint, **op.attrs)])
            return True
        return False

    def fold_pop(self, op: Op) -> None:
        """A value popped from a tape that every push gives one constant is that constant: its
        uses read a new ``const``, and the tape, no longer read, goes with DCE."""
        if not op.result.uses:
            return
        tape = op.operands[0]
        pushed = [user.operands[1] for user, _ in tape.uses if user.name == "tape.push"]
        if not pushed or any(user.name not in ("tape.push", "tape.pop") for user, _ in tape.uses) \
                or not all(_same_constant(pushed[0], v) for v in pushed[1:]) or const_value(pushed[0]) is None:
            return
        const = Builder(op.parent, op.loc).before_op(op).op1("const", [], op.result.type, op.result.name_hint,
                                                             **pushed[0].defining_op.attrs)
        op.result.replace_all_uses_with(const)
        self.changed = True

    def fold_view(self, op: Op) -> bool:
        """``view(view(a, j), k)`` is ``view(a, j + k)``, as C's ``(a + j) + k`` is ``a + (j + k)``.

        One view of the base reads better, lets ``j + k`` fold, and keeps an offset
        that steps back inside an outer view (``k < 0``) meaningful in NumPy too.
        """
        inner = op.operands[0].defining_op
        if inner is None or inner.name != "view" or not _same_rank(op) or not _same_rank(inner):
            return False  # a row (A[i]) is no offset of its array's
        if ops.member_field(inner.operands[1]) is not None or ops.member_field(op.operands[1]) is not None:
            return False  # &p->r[0] (+ k): a pointer to numbers inside structs keeps its member's spelling
        b = Builder(op.parent, op.loc).before_op(op)
        j, k = inner.operands[1], op.operands[1]
        outer_struct = _whole_struct(j)
        if outer_struct is not None and outer_struct.attrs == getattr(_whole_struct(k), "attrs", None):
            # (bodies + i) + j of struct pointers: one struct offset, bodies + (i + j)
            index = add(b, outer_struct.operands[0], k.defining_op.operands[0])
            offset = b.op1("field", [index], k.type, "", **outer_struct.attrs)
        else:
            offset = add(b, j, k)
        merged = b.op1("view", [inner.operands[0], offset], op.result.type, op.result.name_hint)
        self.replace(op, [merged])
        return True

    def fold_if(self, op: Op) -> bool:
        cond = const_value(op.operands[0])
        if not isinstance(cond, bool):
            cond = _known_in_branch(op)
        if not isinstance(cond, bool):
            self.same_in_both(op)
            return self.selects(op)
        term = self.hoist_body(op.regions[0 if cond else 1], op)
        self.replace(op, list(term.operands))
        return True

    @staticmethod
    def same_in_both(op: Op) -> None:
        """A result that both branches yield as one value made before the ``if``, or as equal
        constants, is that value: its users read it directly, and DCE drops the slot (and the
        ``if``, once nothing else in it is needed). Otherwise a condition the result no longer
        depends on keeps its operands alive: a checkpoint snapshot of a value only that
        condition read was stored and never loaded."""
        then, orelse = (r.terminator.operands for r in op.regions)
        for result, a, b in zip(op.results, then, orelse):
            if not result.uses:
                continue
            outside = [v for v in (a, b) if not op.encloses(v)]
            if a is b and outside:
                same = a
            elif _same_constant(a, b):
                same = outside[0] if outside else Builder(op.parent, op.loc).before_op(op).op1(
                    "const", [], a.type, a.name_hint, **a.defining_op.attrs)
            else:
                continue
            if result.name_hint and not same.name_hint:
                same.name_hint = result.name_hint
            result.replace_all_uses_with(same)

    def selects(self, op: Op) -> bool:
        """An ``if`` whose branches compute nothing (constants at most) and yield numbers is a
        ``select`` per result: ``c ? a : b`` of values made before it (a C conditional, a
        ``min`` written out, once CSE has merged its loads; and the adjoint of one, whose
        branches hand the seed to one side and zero to the other). Both sides are there to
        read, so nothing runs that did not; compilers make a select a conditional move, where
        a branch on a data-dependent condition is mispredicted (Floyd-Warshall's reverse sweep)."""
        if not op.results or any(r.type not in _SELECTABLE for r in op.results):
            return False
        if any(inner.name != "const" for region in op.regions for inner in region.ops[:-1]):
            return False
        for region in op.regions:
            self.hoist_body(region, op)
        b = Builder(op.parent, op.loc).before_op(op)
        then, orelse = (list(r.terminator.operands) for r in op.regions)
        picked = [a if a is c else b.op1("select", [op.operands[0], a, c], r.type, r.name_hint)
                  for r, a, c in zip(op.results, then, orelse)]
        for v in picked:
            if v.defining_op is not None and v.defining_op.name == "select":
                v.defining_op.loc = op.loc
        self.replace(op, picked)
        return True

    def fold_for(self, op: Op) -> bool:
        lb, ub, step = (const_value(v) for v in op.operands[:3])
        if not all(isinstance(c, int) and not isinstance(c, bool) for c in (lb, ub, step)) or step == 0:
            return False
        if len(range(lb, ub, step)) != 0:  # type: ignore[arg-type]
            return False
        self.replace(op, list(op.operands[3:]))
        return True

    def fold_while(self, op: Op) -> bool:
        cond = op.regions[0]
        if const_value(cond.terminator.operands[0]) is not False:
            return False
        for arg, init in zip(cond.args, op.operands):
            arg.replace_all_uses_with(init)
        self.hoist_body(cond, op)
        self.replace(op, list(op.operands))
        return True

    @staticmethod
    def hoist_body(region, op: Op) -> Op:
        """Move ``region``'s ops but its terminator to just before ``op``; return the terminator."""
        block = op.parent
        at = block.ops.index(op)
        *body, term = region.ops
        for inner in body:
            block.insert(at, inner)
            at += 1
        region.ops = [term]
        return term

    def replace(self, op: Op, values: list[Value]) -> None:
        """Replace ``op``'s results by ``values`` and erase it (with its regions)."""
        for old, new in zip(op.results, values):
            if old.name_hint and not new.name_hint:
                new.name_hint = old.name_hint  # the user's name is what the emitters print
            old.replace_all_uses_with(new)
        for inner in op.walk():
            self.maybe_dead += [v.defining_op for v in inner.operands if v.defining_op is not None]
        op.erase()

    def erase_dead(self, fn: Function) -> None:
        attached = set(fn.walk())
        while self.maybe_dead:
            op = self.maybe_dead.pop()
            if op not in attached or not is_pure(op) or any(r.uses for r in op.results):
                continue
            attached.discard(op)
            self.maybe_dead += [v.defining_op for v in op.operands if v.defining_op is not None]
            op.erase()


def fold_function(fn: Function) -> None:
    _Folder().run(fn)


def run(module: Module, ctx: PassContext) -> None:
    """The pass: fold every function of ``module`` (no fold depends on ``ctx``)."""
    for fn in module.functions.values():
        fold_function(fn)
