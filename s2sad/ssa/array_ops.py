"""Whole-array ops: NumPy expressions as single IR ops (the ``arr.`` family).

The scalar IR (``ops``) treats arrays as memory, read and written element by
element. Vectorized NumPy code (``np.tanh(W @ x + b)``) is kept whole instead,
so the adjoint can be vectorized too (``d_W += np.outer(d_z, x)``). Every ``arr.``
op except the accumulations (``arr.accum*``, ``ACCUMULATIONS``) has *value
semantics*: it reads its operands' contents and returns a **fresh array** (or a
scalar for a full reduction, or an element) that no op ever writes (writing into
one is rejected before differentiation, ``analysis.effects``), so equal ones may be
merged (CSE) and any of them recomputed while its operands keep their contents.
Such a result is a root of its own for the memory analyses, like ``copy``. The
ops are not ``PURE`` (they read memory, so they must not move past a store into
an operand) and have no effect other than allocating: an unused one is dead.

Operands named ``a``/``b`` may be arrays or scalars; broadcasting follows NumPy
(shapes aligned on the right; an axis of extent 1 stretches). The result rank is
the largest operand rank; the element type is ``f64`` if any operand is a float,
else the operands' common type.

  arr.add arr.sub arr.mul arr.div arr.pow arr.maximum arr.minimum
                   (a, b)                 -> array<T,r>     elementwise, broadcast
  arr.math.atan2 arr.math.hypot arr.math.copysign arr.math.fmod
                   (a, b)                 -> array<f64,r>   the two-operand ufuncs (``BINARY_MATH``),
                                                            elementwise, broadcast
  arr.lt arr.le arr.gt arr.ge arr.eq arr.ne
                   (a, b)                 -> array<bool,r>  elementwise comparison
  arr.neg          (a: array)             -> array          -a
  arr.math.<fn>    (a: array)             -> array          a one-operand ``MATH_FNS`` name
                                                            with a ufunc (``UNARY_MATH``)
                                                            (exp, log, tanh, sqrt, abs, ...)
  arr.where        (c: array<bool>, a, b) -> array<T,r>     np.where(c, a, b)
  arr.sum arr.mean arr.max arr.min arr.prod
                   (a: array<T,r>) {axis?: int, keepdims?: bool}
                                          -> T when no axis, else array<T,r-1>
                                             (array<T,r> with keepdims)
  arr.prod         (a: array<T,r>) {axis?, keepdims?}
                                          -> as arr.sum: np.prod
  arr.cumsum       (a: array<T,r>) {axis: int, reverse?: bool}
                                          -> array<T,r>     np.cumsum(a, axis=axis): running sums
                                                            along the axis (from its end with
                                                            ``reverse``: the adjoint of a cumsum)
  arr.roll         (a: array<T,r>, shift: i64) {axis: int}
                                          -> array<T,r>     np.roll(a, shift, axis=axis): the entries
                                                            moved shift places along the axis, those
                                                            past its end coming back at its start
  arr.pad          (a: array<T,r>, lo0, hi0, ..., lo(r-1), hi(r-1): i64[, value: T]) {mode: str}
                                          -> array<T,r>     np.pad(a, ((lo0, hi0), ...), mode): lo_k
                                                            entries before axis k and hi_k after it
                                                            (widths >= 0): ``value`` (mode
                                                            "constant", the one mode with a value,
                                                            of a's element type), else a copy of
                                                            the entry ``j`` (the position along the
                                                            axis less lo) stands for in an axis of
                                                            extent n: "edge" clip(j, 0, n - 1),
                                                            "wrap" j mod n, "reflect" m or p - m
                                                            (m = j mod p, p = max(2n - 2, 1)),
                                                            whichever is below n, "symmetric" m
                                                            or 2n - 1 - m (m = j mod 2n)
  arr.matmul       (a, b)                 -> a @ b: (2,2)->2, (2,1)->1, (1,2)->1, (1,1)->scalar
  arr.outer        (a: rank 1, b: rank 1) -> array<T,2>     np.outer(a, b)
  arr.transpose    (a: rank 2)            -> array<T,2>     a.T
  arr.full         (d0..dk: i64, v)       -> array<T,k+1>   np.full((d0, ..., dk), v)
  arr.slice        (a: array<T,r>, bounds...) {axes: [str]}
                                          -> array<T,s> or T  a[lo0:hi0, i1, ...]: per axis of a,
                                                            "r" takes two i64 operands (a range
                                                            lo:hi, step 1, 0 <= lo <= hi <= extent)
                                                            and "i" one (an index, dropping the
                                                            axis); s = the number of "r" axes
  arr.reshape      (a: array<T,r>, d0..dk: i64)
                                          -> array<T,k+1>   a.reshape((d0, ..., dk)) (same size,
                                                            C order)
  arr.take         (a: array<T,k>, idx0..idx(j-1): array<int,s>)
                                          -> array<T,s+k-j> a[idx0, ..., idx(j-1)]: NumPy's
                                                            integer-array indexing, one index
                                                            array per leading axis, all of one
                                                            shape, the other axes whole (a[idx]:
                                                            rows; a gather; indices in range)

  arr.einsum       (x0, ..., xk) {subs: str}
                                          -> array<f64,len(out)> or f64
                                                            np.einsum(subs, x0, ..., xk): subs is
                                                            "ij,jk->ik" (letters only, one term
                                                            per operand, its length the operand's
                                                            rank, an explicit output of distinct
                                                            letters that occur in some term)
  arr.diag         (v: rank 1)            -> array<f64,2>   np.diag(v): v on the diagonal
  arr.det          (a: rank 2)            -> f64            np.linalg.det(a)
  arr.inv          (a: rank 2)            -> array<f64,2>   np.linalg.inv(a)
  arr.solve        (a: rank 2, b: rank 1 or 2)
                                          -> array<f64,rank of b>  np.linalg.solve(a, b)
  arr.norm         (a: array<T,r>) {axis?: int}
                                          -> f64, or array<f64,r-1> with axis
                                                            the 2-norm (Frobenius for a matrix
                                                            without axis): np.linalg.norm(a)
  arr.concat       (x0, ..., xk: rank r) {axis: int}
                                          -> array<T,r>     np.concatenate((x0, ..., xk), axis)
  arr.stack        (x0, ..., xk: rank r) {axis: int}
                                          -> array<T,r+1>   np.stack((x0, ..., xk), axis)
  arr.convolve     (a: rank 1, v: rank 1) {mode: "full"|"valid"|"same"}
                                          -> array<f64,1>   np.convolve(a, v, mode)
  arr.interp       (x: f64 or rank 1, xp: rank 1, fp: rank 1)
                                          -> type of x      np.interp(x, xp, fp): piecewise linear
                                                            interpolation, fp[0] and fp[-1] beyond
                                                            the ends

Ops the adjoint transform introduces (undoing broadcasts, reductions, slices, gathers):

  arr.broadcast    (g, like: array) {axis?: int}
                                          -> type of like   g stretched to like's shape; with
                                                            ``axis``, g (rank r-1) gets that axis
                                                            back first (np.expand_dims)
  arr.sum_to       (g: array<T,R>, like: array<T,r>) {keep: [int]}
                                          -> type of like   g summed down to like's shape: over
                                                            the R - r leading axes, then over
                                                            the axes in ``keep`` (of extent 1
                                                            in like), keeping them
  arr.sum_to_shape (g, like, met: array...)
                                          -> like's type    g summed down to the run-time shape of
                                                            like, a shape-generic parameter (or a
                                                            value computed from one): a number or
                                                            an array of a guessed rank in the IR,
                                                            a number or an array of any shape that
                                                            broadcasts to g's at run time
                                                            (Python output only, ``sum_to_shape``);
                                                            refused where like's shape would grow
                                                            the arrays ``met`` it meets
  arr.interp_weights (x: f64 or rank 1, xp: rank 1, g: type of x)
                                          -> array<f64,1>   the adjoint of arr.interp with respect to
                                                            fp: each point's g split between its two
                                                            neighbours by its weights (the helper
                                                            ``interp_weights``)
  arr.interp_breaks (x: f64 or rank 1, xp: rank 1, fp: rank 1, g: type of x)
                                          -> array<f64,1>   the adjoint of arr.interp with respect to
                                                            xp (``interp_breaks``)
  arr.interp_slope (x: f64 or rank 1, xp: rank 1, fp: rank 1)
                                          -> type of x      d np.interp(x, xp, fp) / dx: the slope
                                                            of the piece each point lies on, 0
                                                            beyond the ends (``interp_slope``)
  arr.correlate    (a: rank 1, v: rank 1) {mode: "valid"}
                                          -> array<f64,1>   np.correlate(a, v, "valid") with
                                                            len(a) >= len(v) (the adjoint of
                                                            np.convolve)
  arr.unpad        (g: array<T,r>, lo0, hi0, ..., lo(r-1), hi(r-1): i64) {mode: str}
                                          -> array<T,r>     the adjoint of arr.pad (a mode other than
                                                            "constant") with respect to a: g's
                                                            interior, each padded entry's g added to
                                                            the entry it copies (the helper ``unpad``)
  arr.prod_others  (a: array<T,r>) {axis?: 0 or 1, of a matrix}
                                          -> array<f64,r>   each entry's product of the other
                                                            entries (of its column, axis 0, or
                                                            row, axis 1): the adjoint of a prod,
                                                            right where an entry is 0
  arr.accum        (dst: array, v)        -> ()             dst[...] += v (v has dst's shape, or
                                                            is a scalar); writes dst
  arr.argsort      (a: array<T,1>) {kind?: "quicksort" or "heapsort"}
                                          -> array<i64,1>   np.argsort(a, kind="stable"): the
                                                            indices that sort a, ties in order
                                                            (np.sort(a) is a take of them);
                                                            ``kind``: the primal's own sort,
                                                            which orders ties its own way
  arr.mask         (a: array<T,r>, m: array<bool,q>)
                                          -> array<T,r-q+1> a[m]: NumPy's boolean indexing (q <= r:
                                                            m of a's leading extents), the entries
                                                            (rows) where m holds, in C order
  arr.accum_mask   (dst: array<T,r>, m: array<bool,q>, v: array<T,r-q+1>)
                                          -> ()             dst[m] += v (the adjoint of a mask;
                                                            each entry picked once)
  arr.accum_take   (dst: array<T,k>, idx0..idx(j-1): array<int,s>, v: array<T,s+k-j>)
                                          -> ()             dst[idx0[e], ...] += v[e] for every e, repeated
                                                            indices adding up (np.add.at; the
                                                            adjoint of a take)
  arr.accum_slice  (dst: array, v, bounds...) {axes: [str]}
                                          -> ()             dst[lo0:hi0, i1, ...] += v (bounds as
                                                            in arr.slice; the adjoint of a slice)

``shape_unit_axes`` gives the axes of a value known to have extent 1 (from a
``keepdims`` reduction, a reshape or an allocation to an extent of 1, and a
transpose of one of those): the only static shape facts the adjoint needs to undo
a same-rank broadcast such as ``z - np.max(z, axis=1, keepdims=True)`` or
``a.reshape(-1, 1) + b.reshape(1, -1)``.
"""

from __future__ import annotations

from typing import Optional, Union

from .ir import Op, Value
from .mathfns import MATH
from .slots import slot_of
from .types import BOOL, F64, I64, ArrayType, ScalarType, Type, common_type

PREFIX = "arr."

# The two-operand intrinsics with a NumPy ufunc of the same meaning (np.arctan2, np.hypot,
# np.copysign, np.fmod; not np.remainder, Python's %, nor ldexp's integer exponent).
BINARY_MATH = ("math.atan2", "math.hypot", "math.copysign", "math.fmod")
# The broadcasting ops of two operands: arithmetic and the two-operand ufuncs.
ELEMENTWISE = ("add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum", *BINARY_MATH)
COMPARE = ("lt", "le", "gt", "ge", "eq", "ne")
REDUCTIONS = ("sum", "mean", "max", "min", "prod")
# Linear algebra, einsum, stacking and convolution (``parse.py_linalg``, ``adjoint.linalg_rules``).
LINALG = ("einsum", "diag", "det", "inv", "solve", "norm", "concat", "stack", "convolve", "correlate",
          "logdet", "detsign", "cholesky", "tril", "interp", "interp_weights", "interp_slope", "interp_breaks",
          "eigvalsh", "eigvecsh")
CONVOLVE_MODES = ("full", "valid", "same")
# The one-operand intrinsics NumPy or SciPy has a ufunc of (``np.rint``, ``scipy.special.gammaln``:
# the output imports it from scipy.special, ``mathfns.MathFn.scipy``; no ``math.gamma``).
UNARY_MATH = tuple(name for name, fn in MATH.items() if fn.arity == 1 and (fn.ufunc or fn.scipy))

NAMES: frozenset[str] = frozenset(
    [PREFIX + n for n in ELEMENTWISE + COMPARE + REDUCTIONS]
    + [PREFIX + "math." + fn for fn in UNARY_MATH]
    + [PREFIX + n for n in ("neg", "where", "matmul", "outer", "transpose", "full", "broadcast", "sum_to", "accum")]
    + [PREFIX + "sum_to_shape"]
    + [PREFIX + "slice", PREFIX + "accum_slice", PREFIX + "take", PREFIX + "accum_take", PREFIX + "reshape"]
    + [PREFIX + "mask", PREFIX + "accum_mask", PREFIX + "argsort"]
    + [PREFIX + n for n in LINALG]
    + [PREFIX + "cumsum", PREFIX + "prod_others", PREFIX + "roll", PREFIX + "pad", PREFIX + "unpad"]
)

# np.pad's modes the IR has (``arr.pad``), and the ones whose padding copies entries of the array
# (as the docstring says), which ``arr.unpad`` undoes.
PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")
COPYING_PAD_MODES = PAD_MODES[1:]


# The ops that write: ``dst += ...`` into (part of) an existing array.
ACCUMULATIONS = (PREFIX + "accum", PREFIX + "accum_slice", PREFIX + "accum_take", PREFIX + "accum_mask")
# np.add.at: the one accumulation a program may write itself (the others the adjoint makes).
SCATTER_ADD = PREFIX + "accum_take"


# The ops whose result NumPy makes a view of their first operand (``x[1:]``, ``x.reshape(...)``,
# ``x.T``): the IR takes the result for a value, but the array the output binds shares its memory,
# so it changes when the operand is written.
VIEWS = (PREFIX + "slice", PREFIX + "reshape", PREFIX + "transpose")


def viewed_array(v: Value) -> Value:
    """The array whose memory ``v`` shares in NumPy output: followed through views, else ``v``."""
    while v.defining_op is not None and v.defining_op.name in VIEWS:
        v = v.defining_op.operands[0]
    return v


def is_array_op(name: str) -> bool:
    return name in NAMES


def makes_fresh_array(op: Optional[Op]) -> bool:
    """An ``arr.`` op whose result is a new array (a memory root of its own)."""
    if op is None or op.name not in NAMES or op.name in ACCUMULATIONS:
        return False
    return bool(op.results) and op.result.type.is_array


def array_reads(op: Op) -> list[Value]:
    """The array operands whose contents ``op`` reads."""
    if op.name not in NAMES or op.name == PREFIX + "full":
        return []
    if op.name in (PREFIX + "broadcast", PREFIX + "sum_to", PREFIX + "sum_to_shape"):
        return [op.operands[0]] if op.operands[0].type.is_array else []  # ``like`` gives a shape only
    return [v for v in op.operands if v.type.is_array]  # accum: += reads dst too


def array_writes(op: Op) -> list[Value]:
    return [op.operands[0]] if op.name in ACCUMULATIONS else []


def slice_operands(axes: list[str]) -> int:
    """How many bound operands ``arr.slice`` with these axes takes."""
    return sum(2 if a == "r" else 1 for a in axes)


def _rank(t: Type) -> int:
    return t.rank if isinstance(t, ArrayType) else 0


def _elem(t: Type) -> ScalarType:
    return t.elem if isinstance(t, ArrayType) else t  # type: ignore[return-value]


def _typed(elem: ScalarType, rank: int) -> Type:
    return ArrayType(elem, rank) if rank > 0 else elem


def per_element(name: str) -> bool:
    """An ``arr.`` op (``name`` without the prefix) each element of whose result is computed from the
    elements of its operands at that place (broadcast): arithmetic, the ufuncs, comparisons and
    ``where``."""
    return name in ELEMENTWISE or name in COMPARE or name in ("neg", "where") or name.startswith("math.")


def _unary_math(op: Op) -> bool:
    """``arr.math.<fn>`` of one array (``UNARY_MATH``): its result has the array's shape."""
    return op.name.startswith(PREFIX + "math.") and len(op.operands) == 1


def result_type(name: str, operands: list[Type], attrs: dict) -> Union[Type, str]:
    """The result type of ``arr.<...>`` applied to ``operands``, or a message saying what is wrong."""
    op = name[len(PREFIX):]
    ranks = [_rank(t) for t in operands]
    if op in ELEMENTWISE or op in COMPARE:
        if len(operands) != 2 or max(ranks) == 0:
            return f"'{name}' takes two operands, at least one an array"
        elem = BOOL if op in COMPARE else F64 if op in BINARY_MATH else common_type([_elem(t) for t in operands])
        return ArrayType(elem, max(ranks))
    if op == "neg" or op.startswith("math."):
        if len(operands) != 1 or ranks[0] == 0:
            return f"'{name}' takes one array operand"
        return ArrayType(F64 if op.startswith("math.") else _elem(operands[0]), ranks[0])
    if op == "where":
        if len(operands) != 3 or _elem(operands[0]) != BOOL or max(ranks) == 0:
            return "'arr.where' takes a boolean array and two values"
        return ArrayType(common_type([_elem(t) for t in operands[1:]]), max(ranks))
    if op in REDUCTIONS:
        if len(operands) != 1 or ranks[0] == 0:
            return f"'{name}' takes one array operand"
        axis = attrs.get("axis")
        # (NumPy sums and multiplies booleans as integers: np.sum(x > 0) counts)
        elem = F64 if op == "mean" else I64 if op in ("sum", "prod") and _elem(operands[0]) == BOOL \
            else _elem(operands[0])
        if axis is None:
            return ArrayType(elem, ranks[0]) if attrs.get("keepdims") else elem
        if not isinstance(axis, int) or not 0 <= axis < ranks[0]:
            return f"'{name}' axis {axis!r} is out of range for rank {ranks[0]}"
        return _typed(elem, ranks[0] if attrs.get("keepdims") else ranks[0] - 1)
    if op == "matmul":
        if len(operands) != 2 or not all(r in (1, 2) for r in ranks):
            return "'arr.matmul' takes two arrays of rank 1 or 2"
        return _typed(common_type([_elem(t) for t in operands]), ranks[0] + ranks[1] - 2)
    if op == "outer":
        if len(operands) != 2 or ranks != [1, 1]:
            return "'arr.outer' takes two rank-1 arrays"
        return ArrayType(common_type([_elem(t) for t in operands]), 2)
    if op == "transpose":
        if len(operands) != 1 or ranks[0] != 2:
            return "'arr.transpose' takes one rank-2 array"
        return operands[0]
    if op == "full":
        dims, value = operands[:-1], operands[-1] if operands else None
        if not dims or value is None or ranks[-1] != 0 or any(t != I64 for t in dims):
            return "'arr.full' takes i64 extents and a scalar"
        return ArrayType(_elem(value), len(dims))
    if op == "slice":
        axes = attrs.get("axes")
        if not isinstance(axes, list) or not all(a in ("r", "i") for a in axes) or not operands:
            return "'arr.slice' needs axes = a list of \"r\" (range) and \"i\" (index)"
        if ranks[0] != len(axes) or len(operands) != 1 + slice_operands(axes):
            return f"'arr.slice' of a rank-{ranks[0]} array needs one axis spec per axis and its bounds"
        if any(t != I64 for t in operands[1:]):
            return "'arr.slice' bounds must be i64"
        return _typed(_elem(operands[0]), axes.count("r"))
    if op == "cumsum":
        axis = attrs.get("axis")
        if len(operands) != 1 or ranks[0] == 0 or not isinstance(axis, int) or not 0 <= axis < ranks[0]:
            return "'arr.cumsum' takes one array and an axis of it"
        return ArrayType(I64, ranks[0]) if _elem(operands[0]) == BOOL else operands[0]  # (True counts 1)
    if op == "roll":
        axis = attrs.get("axis")
        if len(operands) != 2 or ranks[0] == 0 or operands[1] != I64 or not isinstance(axis, int) \
                or not 0 <= axis < ranks[0]:
            return "'np.roll' takes one array, an integer shift and an axis of the array"
        return operands[0]
    if op in ("pad", "unpad"):
        mode = attrs.get("mode")
        valued = op == "pad" and mode == "constant"
        if mode not in (PAD_MODES if op == "pad" else COPYING_PAD_MODES) or not ranks or ranks[0] == 0 \
                or len(operands) != 1 + 2 * ranks[0] + valued or any(t != I64 for t in operands[1:1 + 2 * ranks[0]]) \
                or (valued and ranks[-1] != 0):
            return (f"'np.pad' takes an array, two integer widths per axis and a mode of {', '.join(PAD_MODES)}"
                    " (with the constant value last in mode 'constant')")
        if valued and operands[-1] != _elem(operands[0]):
            return "'np.pad' pads with a constant of the array's element type"
        return operands[0]
    if op == "prod_others":
        axis = attrs.get("axis")
        if len(operands) != 1 or ranks[0] == 0 or axis is not None and (ranks[0] != 2 or axis not in (0, 1)):
            return "'arr.prod_others' takes one array (and an axis of a matrix)"
        return ArrayType(F64, ranks[0])
    if op == "reshape":
        if len(operands) < 2 or ranks[0] == 0 or any(t != I64 for t in operands[1:]):
            return "'arr.reshape' takes an array and i64 extents"
        return ArrayType(_elem(operands[0]), len(operands) - 1)
    if op == "argsort":
        if len(operands) != 1 or ranks[0] != 1 or attrs.get("kind", "quicksort") not in ("quicksort", "heapsort"):
            return "'arr.argsort' takes one rank-1 array (and the kind of an unstable sort)"
        return ArrayType(I64, 1)
    if op == "mask":
        if len(operands) != 2 or ranks[0] == 0 or not 1 <= ranks[1] <= ranks[0] or _elem(operands[1]) != BOOL:
            return "'arr.mask' takes an array and a boolean array of its rank or less (of its leading extents)"
        return ArrayType(_elem(operands[0]), ranks[0] - ranks[1] + 1)
    if op == "take":
        if not 2 <= len(operands) <= ranks[0] + 1 or ranks[1] == 0 or len(set(ranks[1:])) != 1 \
                or not all(_elem(t).is_int for t in operands[1:]):
            return ("'arr.take' takes an array and one array of integer indices per leading axis (up to one per "
                    "axis), all of one rank")
        return ArrayType(_elem(operands[0]), ranks[1] + ranks[0] - (len(operands) - 1))
    if op in LINALG:
        return _linalg_type(op, operands, ranks, attrs)
    if op == "sum_to_shape":
        if len(operands) < 2 or 0 in ranks[2:]:
            return "'arr.sum_to_shape' takes a value, a value to take the run-time shape of and the arrays it met"
        return operands[1]
    if op in ("broadcast", "sum_to"):
        if len(operands) != 2 or ranks[1] == 0:
            return f"'{name}' takes a value and an array to take the shape of"
        if op == "sum_to" and ranks[0] < ranks[1]:
            return "'arr.sum_to' cannot sum a value up to a higher rank"
        return operands[1]
    return f"unknown array op '{name}'"


def einsum_terms(subs: str) -> tuple[list[str], str]:
    """``"ij,jk->ik"`` -> (["ij", "jk"], "ik")."""
    ins, _, out = subs.partition("->")
    return ins.split(","), out


def einsum_problem(subs: object, ranks: list[int]) -> Optional[str]:
    """What is wrong with an ``arr.einsum`` subscripts string for operands of these ranks, or None."""
    if not isinstance(subs, str) or "->" not in subs:
        return "np.einsum needs a subscripts string with an explicit '->' output"
    terms, out = einsum_terms(subs)
    if not all(t.isalpha() or t == "" for t in terms + [out]):
        return "np.einsum subscripts must be letters (no '...')"
    if len(terms) != len(ranks):
        return f"np.einsum subscripts '{subs}' name {len(terms)} operand(s), but {len(ranks)} are given"
    for k, (t, r) in enumerate(zip(terms, ranks)):
        if len(t) != r:
            return f"np.einsum term '{t}' has {len(t)} letter(s), but operand {k + 1} has rank {r}"
    if len(set(out)) != len(out) or not set(out) <= set("".join(terms)):
        return f"np.einsum output '{out}' must be distinct letters of the inputs"
    return None


def _linalg_type(op: str, operands: list[Type], ranks: list[int], attrs: dict) -> Union[Type, str]:
    if op == "einsum":
        if not operands or min(ranks) == 0:
            return "'arr.einsum' takes arrays"
        why = einsum_problem(attrs.get("subs"), ranks)
        if why is not None:
            return why
        return _typed(F64, len(einsum_terms(attrs["subs"])[1]))
    if op == "diag":
        return ArrayType(F64, 2) if ranks == [1] else "'arr.diag' takes one rank-1 array"
    if op in ("det", "inv", "logdet", "detsign", "cholesky", "tril", "eigvalsh", "eigvecsh"):
        if ranks != [2]:
            return f"'arr.{op}' takes one rank-2 array (a square matrix)"
        return F64 if op in ("det", "logdet", "detsign") else ArrayType(F64, 1 if op == "eigvalsh" else 2)
    if op == "solve":
        if len(ranks) != 2 or ranks[0] != 2 or ranks[1] not in (1, 2):
            return "'np.linalg.solve' takes a matrix and a vector or matrix"
        return ArrayType(F64, ranks[1])
    if op == "norm":
        axis = attrs.get("axis")
        if len(ranks) != 1 or not 1 <= ranks[0] <= (2 if axis is None else 8):
            return "'np.linalg.norm' takes a vector or a matrix (or an array with axis=)"
        if axis is None:
            return F64
        if not isinstance(axis, int) or not 0 <= axis < ranks[0]:
            return f"'np.linalg.norm' axis {axis!r} is out of range for rank {ranks[0]}"
        return _typed(F64, ranks[0] - 1)
    if op in ("concat", "stack"):
        axis = attrs.get("axis")
        if not operands or min(ranks) == 0 or len(set(ranks)) != 1:
            return f"'{'np.concatenate' if op == 'concat' else 'np.stack'}' takes arrays of one rank"
        rank = ranks[0] + (op == "stack")
        if not isinstance(axis, int) or not 0 <= axis < rank:
            return f"axis {axis!r} is out of range for the rank-{rank} result"
        return ArrayType(common_type([_elem(t) for t in operands]), rank)
    if op in ("interp", "interp_weights", "interp_slope", "interp_breaks"):
        # (points, xp, fp) or, for the adjoints, with g (of the points' rank) last
        expected = [ranks[0], 1, ranks[0]] if op == "interp_weights" else [ranks[0], 1, 1] + (
            [ranks[0]] if op == "interp_breaks" else [])
        if ranks[:1] not in ([0], [1]) or ranks != expected:
            return f"'arr.{op}' takes points (a number or a vector) and vectors"
        return ArrayType(F64, 1) if op in ("interp_weights", "interp_breaks") else _typed(F64, ranks[0])
    # convolve, correlate
    if ranks != [1, 1] or attrs.get("mode") not in CONVOLVE_MODES:
        return f"'np.{op}' takes two rank-1 arrays and a mode 'full', 'valid' or 'same'"
    return ArrayType(F64, 1)


def _is_one(v: Value) -> bool:
    """``v`` is the constant 1 (``build.const_value``, which imports this module's users)."""
    return v.defining_op is not None and v.defining_op.name == "const" and v.defining_op.attrs["value"] == 1


def _one_apart(lo: Value, hi: Value) -> bool:
    """``hi`` is ``lo + 1``: two constants, or the same value plus constants one apart
    (``j:j + 1``, ``i - 1:i``, ``k + 2:k + 3``)."""
    (a, p), (b, q) = offset_of(lo), offset_of(hi)
    return a is b and q - p == 1


def offset_of(v: Value, depth: int = 8) -> tuple[Optional[Value], int]:
    """``v`` as a value plus a constant (None plus the constant for a constant)."""
    op = v.defining_op
    if op is not None and op.name == "const" and isinstance(op.attrs["value"], int):
        return None, op.attrs["value"]
    if depth and op is not None and op.name in ("add", "sub"):
        (a, p), (b, q) = offset_of(op.operands[0], depth - 1), offset_of(op.operands[1], depth - 1)
        if b is None:
            return a, p + q if op.name == "add" else p - q
        if a is None and op.name == "add":
            return b, p + q
    return v, 0


def shape_unit_axes(v: Value) -> frozenset[int]:
    """Axes of ``v`` known to have extent 1 (see the module docstring)."""
    return _UnitAxes().of(v)


# The attribute of a ``call`` listing the unit axes of each of its results: those of every value the
# callee returns in that place (``mark_call_unit_axes``), so that a helper's keepdims result is known as one
# without inlining it (``x - center(x)``).
CALL_UNIT_AXES = "unit_axes"


class _UnitAxes:
    """``shape_unit_axes`` of one value, each value seen once (a value read by several ops of an
    expression is not walked again for each). A value that merges others (an ``if``'s result, a
    loop's carried value, which the adjoint's tapes make too) has the unit axes all of them have:
    a loop's, found by assuming every axis unit on the way round and narrowing until it holds."""

    def __init__(self) -> None:
        self.known: dict[Value, frozenset[int]] = {}
        self.merging: set[Value] = set()  # merges whose unit axes are being found, assumed so far

    def of(self, v: Value) -> frozenset[int]:
        if not v.type.is_array:
            return frozenset()
        if v not in self.known:
            self.known[v] = self._find(v)
        return self.known[v]

    def _find(self, v: Value) -> frozenset[int]:
        slot = slot_of(v)
        if slot is not None:
            sources = [s for s in slot.sources if s.defining_op is None or s.defining_op.name != "undef"]
            if not sources:
                return frozenset()
            self.known[v] = assumed = frozenset(range(v.type.rank))  # on the way round a loop
            self.merging.add(v)
            while True:
                found = assumed
                for s in sources:
                    found &= self.of(s)
                if found == assumed:
                    self.merging.discard(v)
                    return found
                for stale in [k for k in self.known if k not in self.merging]:
                    del self.known[stale]  # worked out from the assumption just narrowed
                self.known[v] = assumed = found
        op = v.defining_op
        if op is None:  # a parameter annotated with an axis of extent 1
            return v.owner.arg_unit_axes.get(v.index, frozenset()) if v.owner.parent_op is None else frozenset()
        if op.name == "call":
            units = op.attrs.get(CALL_UNIT_AXES)
            return frozenset(units[v.index]) if units else frozenset()
        if op.name[len(PREFIX):] in REDUCTIONS and op.attrs.get("axis") is not None:
            # the axis reduced (kept: of extent 1), and those of the operand it keeps (a keepdims
            # sum of a keepdims sum, np.sum(x, axis=(1, 2), keepdims=True), is unit on both)
            axis = op.attrs["axis"]
            kept = self.of(op.operands[0])
            if op.attrs.get("keepdims"):
                return kept | {axis}
            return frozenset(k if k < axis else k - 1 for k in kept if k != axis)
        if op.name[len(PREFIX):] in REDUCTIONS and op.attrs.get("keepdims"):
            return frozenset(range(v.type.rank))
        if op.name in (PREFIX + "neg", "copy") or _unary_math(op):
            return self.of(op.operands[0])
        if op.name in (PREFIX + "sum_to", PREFIX + "broadcast"):  # the shape of the array it is made like
            return self.of(op.operands[1])
        if op.name == PREFIX + "transpose":  # the keepdims column of a sum, turned into a row
            return frozenset(1 - a for a in self.of(op.operands[0]))
        if op.name == PREFIX + "slice":  # s[:, :1], s[j:j + 1]: a range one long
            out, k, at = set(), 0, 1
            for kind in op.attrs["axes"]:
                if kind == "r":
                    if _one_apart(op.operands[at], op.operands[at + 1]):
                        out.add(k)
                    k += 1
                    at += 2
                else:
                    at += 1
            return frozenset(out)
        if op.name in (PREFIX + "reshape", PREFIX + "full", "alloc"):  # x.reshape(-1, 1), np.zeros((n, 1))
            dims = op.operands[1:] if op.name == PREFIX + "reshape" else op.operands[:v.type.rank]
            return frozenset(k for k, d in enumerate(dims) if _is_one(d) or self._unit_extent(d))
        if op.name[len(PREFIX):] in ELEMENTWISE:
            # Unit in the result only where every array operand of full rank is unit there.
            arrays = [o for o in op.operands if o.type.is_array]
            if all(o.type.rank == v.type.rank for o in arrays):
                out: Optional[frozenset[int]] = None
                for o in arrays:
                    u = self.of(o)
                    out = u if out is None else out & u
                return out or frozenset()
        return frozenset()

    def _unit_extent(self, d: Value) -> bool:
        """``d`` is the extent of a unit axis of another array (an adjoint allocated like a
        keepdims row: ``np.zeros((x.shape[0], ...))`` where ``x.shape[0]`` is 1)."""
        op = d.defining_op
        return op is not None and op.name == "dim" and op.attrs["axis"] in self.of(op.operands[0])


def reduction_axis(op: Op) -> Optional[int]:
    return op.attrs.get("axis")
