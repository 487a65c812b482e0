"""The one table of what each op is: the facts the verifier, interpreter, passes and AD ask.

``ops`` and ``array_ops`` say what the ops mean (their text forms, operands and results);
this module holds, per op name, the answers other code used to give itself by testing names:

* ``pure``: no effect, and the result depends on the operands alone, so passes may merge,
  move and drop it (``view`` is one: address arithmetic, it reads and writes no memory);
* ``never_fails``: it may run where the program would not have run it (hoisted out of a
  branch or a loop that runs zero times) whatever its operands; ``speculatable`` adds the
  ops that cannot fail for the operands they have (a division by a non-zero constant);
* ``reads`` / ``writes``: the array operands whose memory it reads or writes (``effects``
  says when that is not the whole story: a call does what its callee does, and a barrier
  makes what other threads wrote visible, so any memory may change);
* ``fresh``: its array result is new memory, a root of its own for the memory analyses;
* ``terminator`` and ``regions``: the shape the verifier checks.

Whole-array (``arr.``) ops are in the table like any other: ``array_ops`` says which
operands each reads and writes, and this module, which sits above both, puts them here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from . import array_ops, mpi
from .build import const_value
from .gpu import BUILTINS as GPU_BUILTINS
from .gpu import SHUFFLE, SYNC
from .ir import Op, Value
from .ops import BINARY_ARITH, BITNOT, BITWISE, BOOL_OPS, COMPARE, MATH_FNS, TERMINATORS

Operands = Callable[[Op], list[Value]]


def _nothing(op: Op) -> list[Value]:
    return []


def _first(op: Op) -> list[Value]:
    return [op.operands[0]]


def _array_operands(op: Op) -> list[Value]:
    return [v for v in op.operands if v.type.is_array]


def _custom_shadows(op: Op) -> list[Value]:
    return [op.operands[k] for k in op.attrs["shadows"]]


@dataclass(frozen=True)
class OpDef:
    """What one op name is (see the module docstring)."""

    name: str
    pure: bool = False
    never_fails: bool = False
    reads: Operands = _nothing
    writes: Operands = _nothing
    effects: str = "memory"  # "memory": reads/writes say all; "call": the callee's; "barrier": any;
    # "stop": none, but it ends the program (kept and ordered as a barrier is); "communication":
    # reads/writes say this rank's memory, and other ranks take part (kept and ordered as a barrier)
    fresh: bool = False
    terminator: bool = False
    regions: int = 0

    def touches(self, write: bool) -> bool:
        """Whether an op of this name may itself write (or read) memory: ``writes`` (``reads``)
        says some operands, or the callee or a barrier decides."""
        return self.effects != "memory" or (self.writes if write else self.reads) is not _nothing


def _array_fresh(op: Op) -> bool:
    return any(r.type.is_array for r in op.results)  # (a call may return several values)


_PURE_NAMES = set(BINARY_ARITH + BITWISE + COMPARE + BOOL_OPS) | {BITNOT} | {
    "const", "neg", "not", "select", "cast", "undef", "dim", "view", "field",
} | {f"math.{fn}" for fn in MATH_FNS} | set(GPU_BUILTINS)

# Pure ops that cannot fail, whatever their operands. A view is address arithmetic: NumPy's
# ``x[k:]`` never raises, C's ``x + k`` never traps.
_NEVER_FAIL = {"add", "sub", "mul", "neg", "not", "and", "or", "select", "const", "undef", "dim", "view",
               "field", "bitand", "bitor", "bitxor", BITNOT, *COMPARE}


def _table() -> dict[str, OpDef]:
    table: dict[str, OpDef] = {}

    def add(d: OpDef) -> None:
        table[d.name] = d

    for name in sorted(_PURE_NAMES):
        add(OpDef(name, pure=True, never_fails=name in _NEVER_FAIL))
    for name in TERMINATORS:
        add(OpDef(name, terminator=True))
    add(OpDef("for", regions=1))
    add(OpDef("while", regions=2))
    add(OpDef("if", regions=2))
    add(OpDef("load", reads=_first))
    add(OpDef("store", writes=_first))
    add(OpDef("accum", reads=_first, writes=_first))  # arr[idx] += value: reads the element it adds to
    add(OpDef("alloc", fresh=True))
    add(OpDef("copy", reads=_first, fresh=True))
    # A call's array result is new memory: the Python front end lets a helper return an array only
    # where the helper makes it (``parse/py_array_results``), never a parameter or a view.
    add(OpDef("call", effects="call", fresh=True))
    # A function s2sad does not see: a function of its arguments that reads its (const) arrays. Not
    # pure: never merged, moved or recomputed, so it runs where the primal ran it (its result is
    # kept for the reverse sweep); only a call whose result is unused is dropped.
    add(OpDef("extern", reads=_array_operands))
    # A global number that nothing changes while the gradient runs (``parse/c_globals``): a value
    # of no operands, as ``const`` is, read where the output needs it. (Where code s2sad does not
    # see may change it, it is read by an ``extern`` op with ``global`` set.)
    add(OpDef("global", pure=True, never_fails=True))
    # Its custom adjoint (``adjoint/reverse._reverse_custom``): reads what the call read, adds into
    # the shadows it is passed (attrs "shadows": their positions).
    add(OpDef("extern.adjoint", reads=_array_operands, writes=_custom_shadows))
    add(OpDef("tape.new", fresh=True))
    add(OpDef("tape.push", writes=_first))
    add(OpDef("tape.pop", reads=_first, writes=_first))  # reads the top and shrinks the stack
    add(OpDef("comment"))
    add(OpDef(SYNC, effects="barrier"))
    # Not pure: it exchanges values between the lanes of a warp, so it stays where the lanes
    # meet (never moved out of a branch or a loop, never merged); no memory.
    add(OpDef(SHUFFLE))
    # The program stops here (C's exit/abort, or a function of the file that always ends in one):
    # no memory, but never dead and never moved, so the gradient stops where the primal does.
    add(OpDef("stop", effects="stop"))
    for name in sorted(mpi.NAMES - {"mpi.wait", *mpi.QUERIES}):
        add(OpDef(name, reads=mpi.mpi_reads, writes=mpi.mpi_writes, effects="communication"))
    for name in mpi.QUERIES:  # this rank's number, the number of ranks: values of the communicator
        add(OpDef(name, pure=True))
    # A wait completes receives into buffers its operands do not name: any memory may change.
    add(OpDef("mpi.wait", effects="barrier"))
    for name in sorted(array_ops.NAMES):
        add(OpDef(name, reads=array_ops.array_reads, writes=array_ops.array_writes,
                  fresh=name not in array_ops.ACCUMULATIONS))
    return table


OPS: dict[str, OpDef] = _table()


def op_def(name: str) -> OpDef:
    """The facts of the op called ``name`` (KeyError when there is none)."""
    return OPS[name]


def is_known(name: str) -> bool:
    return name in OPS


def is_pure(op: Op) -> bool:
    d = OPS.get(op.name)
    return d is not None and d.pure


def reads_global(op: Op) -> bool:
    """A read of a C global number: a ``global`` op, or an ``extern`` one with ``global`` set where
    code s2sad does not see may change it (``parse/c_globals``)."""
    return op.name == "global" or op.name == "extern" and bool(op.attrs.get("global"))


def makes_fresh(op: Optional[Op]) -> bool:
    """Whether ``op``'s array result is new memory (``alloc``, ``copy``, a whole-array value)."""
    if op is None:
        return False
    d = OPS.get(op.name)
    return d is not None and d.fresh and _array_fresh(op)


def speculatable(op: Op) -> bool:
    """Whether ``op`` can run where the original program would not have run it, without failing."""
    d = OPS.get(op.name)
    if d is not None and d.never_fails:
        return True
    if op.name == "cast":
        # int(nan) and int(inf) raise; everything else converts.
        return not (op.operands[0].type.is_float and op.result.type.is_int)
    if op.name in ("shl", "shr"):
        # Python raises on a negative count, C leaves one past the width undefined.
        k = const_value(op.operands[1])
        return isinstance(k, int) and not isinstance(k, bool) and 0 <= k < 64
    if op.name in ("div", "floordiv", "mod", "rem"):
        c = const_value(op.operands[1])
        if c is None or isinstance(c, bool):
            return False
        if op.result.type.is_float:
            # Python's math.fmod raises on an infinite dividend, whatever the divisor.
            return c != 0 and op.name != "rem"
        return c not in (0, -1)
    return False


# Operations whose derivative is infinite or undefined at some finite argument (the divisor of a
# division, a power's base, the square and cube roots at 0, the logarithms at 0 and below, the
# inverse sines and cosines past +-1, ...), by the name of the scalar op or of the ``arr.`` op
# without its prefix.
SINGULAR = frozenset({"div", "pow", "math.sqrt", "math.cbrt", "math.log", "math.log1p", "math.log2",
                      "math.log10", "math.asin", "math.acos", "math.acosh", "math.atanh", "math.pow"})


def computed_per_element(op: Op) -> Optional[str]:
    """The float operation ``op`` computes element by element (the name without ``arr.``: arithmetic
    or a math function of numbers, or an ``arr.`` op of the same), or None (a comparison, ``where``)."""
    if op.name.startswith(array_ops.PREFIX):
        name = op.name[len(array_ops.PREFIX):]
        return name if array_ops.per_element(name) and name not in array_ops.COMPARE and name != "where" else None
    if op.name in ("add", "sub", "mul", "div", "neg", "pow") or op.name.startswith("math."):
        return op.name if len(op.results) == 1 and op.result.type.is_float else None
    return None


def singular(op: Op) -> bool:
    """Whether the derivative of ``op`` may be infinite or undefined at a finite argument
    (``SINGULAR``): not a power by a constant whole number of at least 1 (``r ** 2``), nor a
    division by a constant."""
    name = computed_per_element(op)
    if name not in SINGULAR:
        return False
    c = const_value(op.operands[1]) if len(op.operands) == 2 else None
    if name in ("pow", "math.pow") and c is not None:
        return not (float(c).is_integer() and c >= 1)
    return not (name == "div" and c is not None and c != 0)


__all__ = ["OPS", "OpDef", "SINGULAR", "computed_per_element", "is_known", "is_pure", "makes_fresh", "op_def",
           "singular", "speculatable"]
