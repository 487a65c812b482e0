"""The op vocabulary of the IR: names, operands, results, attributes, semantics.

Every op the front ends, passes and emitters know is listed in ``OPS``. Text
form (see ``printer``): ``%r = name %a, %b {attr = value} : type``.

Scalar ops (pure; operands and result share one scalar type unless said):

  const            {value: int|float|bool}         -> scalar            literal
  add sub mul div  (a, b)                          -> type of a         arithmetic; ``div`` on
                                                                        floats is true division
  floordiv mod     (a, b)                          -> type of a         Python semantics
                                                                        (floored) on ints/floats;
                                                                        floordiv {rounding = "any"}:
                                                                        a truncated quotient is as
                                                                        correct here (C prints ``/``)
  rem              (a, b)                          -> type of a         C's ``%``: truncated, the
                                                                        sign of a (ints); ``fmod``
                                                                        on floats
  pow              (a, b)                          -> type of a         a ** b
  neg              (a)                             -> type of a
  bitand bitor     (a, b: int)                     -> type of a         C's & | ^ on integers (two's
  bitxor                                                                complement, as Python's
                                                                        ints and NumPy's compute)
  shl shr          (a, b: int)                     -> type of a         a << b, a >> b (arithmetic:
                                                                        floored); 0 <= b < 64
  bitnot           (a: int)                        -> type of a         ~a, that is -a - 1
  lt le gt ge eq ne (a, b)                         -> bool              comparison
  not              (a: bool)                       -> bool
  and or           (a: bool, b: bool)              -> bool              eager (both evaluated);
                                                                        short-circuit is an ``if``
  select           (c: bool, a, b)                 -> type of a         c ? a : b, eager
  cast             (a)                             -> the result type   int<->float, f32<->f64,
                                                                        bool->int
  math.<fn>        (a) or (a, b)                   -> type of a         intrinsic: sin, cos, tan,
                                                                        exp, log, sqrt, pow,
                                                                        atan2, hypot, abs, min,
                                                                        max, ... (``MATH_FNS``);
                                                                        ldexp's second operand
                                                                        is an integer
  field            (i, s1, ..., sk) {struct: str, path: str, coefs: [int], offset: int}
                                                   -> i64               coefs[0] * i + coefs[1] * s1
                                                                        + ... + offset: the element
                                                                        of a run of scalars that a
                                                                        C struct member is; ``i``
                                                                        picks the struct, ``s1..``
                                                                        subscript array members,
                                                                        ``path`` (``.pos[]``, one
                                                                        ``[]`` a subscript) spells
                                                                        the access for C output
  undef            ()                              -> scalar            placeholder initial value
                                                                        of a loop-carried variable
                                                                        first set inside the loop

Memory ops (arrays are references to memory):

  load             (arr, i0, ..., ik) {cover?: bool} -> elem type       arr[i0, ..., ik]; cover =
                                                                        true: an element within
                                                                        the array's cover (an
                                                                        array tape's read), no
                                                                        bound for C's extents
  store            (arr, i0, ..., ik, value)       -> ()                arr[i0, ..., ik] = value
  accum            (arr, i0, ..., ik, value)       -> ()                arr[i0, ..., ik] += value:
                                                                        reverse mode's addition of
                                                                        an adjoint into shadow
                                                                        memory (``d_x[i] += g``),
                                                                        reading and writing arr;
                                                                        the user's own ``x[i] +=
                                                                        y`` stays load/add/store
  alloc            (d0, ..., dk) {fill: zeros|empty, elem: type, cache?: bool, table?: bool}
                                                   -> array             new array; cache = true
                                                                        marks a buffer the forward
                                                                        sweep fills per iteration
                                                                        for the reverse sweep to
                                                                        read: C and CUDA output
                                                                        zero it even when fill is
                                                                        empty; table = true marks
                                                                        a read-only table (C's
                                                                        const arrays): the stores
                                                                        of constants right after
                                                                        it print as its initializer
  dim              (arr) {axis: int}               -> i64               arr.shape[axis]
  copy             (arr)                           -> array             a new array with arr's
                                                                        shape and contents
  view             (arr: array<T,r>, off: i64)     -> array<T,r>        arr[off], arr[off + 1], ...
                                                                        along axis 0, sharing arr's
                                                                        memory (C's ``arr + off``,
                                                                        NumPy's ``arr[off:]``); no
                                                                        copy; 0 <= off <= len(arr)
                   (arr: array<T,r>, i: i64)       -> array<T,r-1>      the row arr[i] (r >= 2),
                                                                        sharing arr's memory (C's
                                                                        ``A[i]`` of ``double
                                                                        A[n][m]``, NumPy's ``A[i]``);
                                                                        0 <= i < len(arr)

Calls:

  call             (args...) {callee: name}        -> callee results    a user function of the module
  extern           (args...) {callee: name, prototype: str, args: [str]}
                                                   -> () or one scalar  a function defined outside the
                                                                        input (C: declared by its
                                                                        ``prototype``, printed in C
                                                                        output); its array operands
                                                                        are only read (const
                                                                        pointers). No derivative: the
                                                                        adjoint refuses one whose
                                                                        operands are active, naming
                                                                        the argument (``args``: each
                                                                        one's source text)

Structured control flow (each region is one Block ending in a terminator):

  for   (lb, ub, step, init0..initk)  region body(iv: i64, c0..ck) ends with yield(c0'..ck')
        -> final carried values. Iterates iv over range(lb, ub, step) (step may be negative;
        it is an SSA value, a ``const`` when known).
  if    (cond: bool)  regions then(), else() each ending with yield(v0..vk) -> v0..vk
  while (init0..initk) regions cond(c0..ck) ends with condition(b: bool),
        body(c0..ck) ends with yield(c0'..ck') -> carried values when b is false
  yield (v...)        terminator of for/if/while-body regions
  condition (b)       terminator of a while's cond region
  return (v...)       terminator of a function body

Tapes (only produced by the adjoint transform; a tape is a stack of scalars):

  tape.new         (capacity: i64) {elem: "f64"|"i64"|"bool", grow: bool}
                                                   -> array<elem,1>     an empty stack with room
                                                                        for ``capacity`` values; with
                                                                        grow = true it doubles when
                                                                        full (trip count unknown)
  tape.push        (tape, value)                   -> ()                push one value
  tape.pop         (tape)                          -> elem type         pop the last pushed value

CUDA thread built-ins (pure; documented in ``s2sad.ssa.gpu``):

  gpu.thread_idx gpu.block_idx gpu.block_dim gpu.grid_dim
                   () {axis: "x"|"y"|"z"}          -> i64               threadIdx.x, blockIdx.y, ...
  gpu.sync         ()                              -> ()                __syncthreads() (not pure)

Annotations:

  comment          () {text: str}                  -> ()                a comment line in the output;
                                                                        no effect on semantics

Whole-array ops (``arr.add``, ``arr.matmul``, ``arr.sum``, ...; value semantics, fresh
results) are documented in ``s2sad.ssa.array_ops``.

Attributes on any op: ``loc`` is kept outside attrs (``Op.loc``).

What each op is to the passes (pure, speculatable, which operands it reads and writes) is in
one table, ``s2sad.ssa.opdefs``.
"""

from __future__ import annotations

from .gpu import BUILTINS as GPU_BUILTINS
from typing import Optional

from .ir import Op, Value
from .mathfns import MATH
from .types import BOOL, I32, I64, ScalarType, Type

BINARY_ARITH = ("add", "sub", "mul", "div", "floordiv", "mod", "rem", "pow")
# Integer-only bit operations (C's & | ^ << >> and ~): never active, so they need no rules.
BITWISE = ("bitand", "bitor", "bitxor", "shl", "shr")
BITNOT = "bitnot"
COMPARE = ("lt", "le", "gt", "ge", "eq", "ne")
# An ordering comparison seen from its other side (``a < b`` is ``b > a``), and the one that holds
# where it fails (``not a < b`` is ``a >= b``: integers, or floats that are not NaN).
MIRRORED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt"}
BOOL_OPS = ("and", "or")

# Math intrinsics: name -> number of operands (the table, with each language's spelling,
# is ``mathfns``). Derivative rules live in s2sad.adjoint.rules.
MATH_FNS: dict[str, int] = {name: fn.arity for name, fn in MATH.items()}
# Intrinsics only derivatives use (``digamma``): no input spells them, no rule differentiates them.
DERIVATIVE_ONLY = frozenset(name for name, fn in MATH.items() if not fn.source)

TERMINATORS = ("yield", "condition", "return")
CONTROL_FLOW = ("for", "if", "while")


def result_type(name: str, operand_types: list[Type]) -> Type:
    """The result type of a pure scalar op given its operand types."""
    if name in COMPARE or name in BOOL_OPS or name == "not":
        return BOOL
    if name == "select":
        return operand_types[1]
    if name in ("dim", "field") or name in GPU_BUILTINS:
        return I64
    return operand_types[0]


def field_value(op_attrs: dict, operands: list[int]) -> int:
    """What a ``field`` op computes from its attributes and integer operands."""
    return sum(c * x for c, x in zip(op_attrs["coefs"], operands)) + op_attrs["offset"]


def member_field(v: Value) -> Optional[Op]:
    """The ``field`` op that gives ``v`` when it is the offset of a view into a struct member
    (``&cam->r[0]``, ``cam->kappa``): such a view points at numbers, not at structs."""
    op = v.defining_op
    if op is not None and op.name == "field" and op.attrs["path"]:
        return op
    return None


def int_member(index: Value) -> Optional[ScalarType]:
    """The type of the integer member a ``field`` index names (``pts[i].id`` of a struct of mixed
    members: an ``int`` in a slot of the struct's floating type), else None."""
    op = index.defining_op
    if op is None or op.name != "field" or "int_member" not in op.attrs:
        return None
    return I64 if op.attrs["int_member"] == "i64" else I32


def storage_of(arr: Value) -> Value:
    """The array whose extents ``arr``'s follow from: through copies and views (``x + k``) of it."""
    op = arr.defining_op
    while op is not None and op.name in ("copy", "view"):
        arr = op.operands[0]
        op = arr.defining_op
    return arr


def struct_in_member(v: Value) -> Optional[str]:
    """The struct type a view of ``v``'s says it points at, inside a member of other structs
    (``layer(&net->layers[l])``: Layer), through views and copies of it; None where there is none."""
    op = v.defining_op
    while op is not None and op.name in ("view", "copy"):
        if op.name == "view" and op.attrs.get("struct"):
            return op.attrs["struct"]
        op = op.operands[0].defining_op
    return None


def points_into_member(v: Value) -> bool:
    """Whether the array ``v`` is (a view of) a view into a struct member."""
    op = v.defining_op
    while op is not None and op.name in ("view", "copy"):
        if op.name == "view" and op.attrs.get("struct"):
            return False  # (&net->layers[l] passed on: structs inside a member, struct_in_member)
        if op.name == "view" and member_field(op.operands[1]) is not None:
            return True
        op = op.operands[0].defining_op
    return False


def made_extent(v: Value, axis: int) -> Optional[Value]:
    """The value the array ``v`` was made with as its extent along ``axis``, where the op that
    makes it says so: an ``alloc``'s operand, the rows ``copy(x, n)`` took, or a copy's original's
    (None otherwise: ``dim`` asks at run time)."""
    m = v.defining_op
    if m is not None and m.name == "alloc" and len(m.operands) == v.type.rank:  # type: ignore[attr-defined]
        return m.operands[axis]
    if m is not None and m.name == "copy" and m.operands[0].type == v.type:
        return m.operands[1] if axis == 0 and len(m.operands) == 2 else made_extent(m.operands[0], axis)
    return None


def view_base(v: Value) -> Value:
    """The array ``v`` is a view of (through views of views), or ``v`` itself.

    Writes through a view are writes to its base: every analysis that reasons
    about which memory an array value names starts here.
    """
    op = v.defining_op
    while op is not None and op.name == "view":
        v = op.operands[0]
        op = v.defining_op
    return v
