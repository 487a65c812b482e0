"""Derivative rules of linear algebra, einsum, stacking and convolution (``arr.`` ops of
``array_ops.LINALG``), registered with the other rules of whole-array ops.

* ``einsum``: the adjoint of each operand is another einsum, of the result's adjoint and the
  other operands, onto that operand's letters. A letter only that operand has (summed inside
  it, ``ij->i``) is stretched back with a vector of ones; a term ``ii`` (a diagonal) gets the
  adjoint of its diagonal (``arr.diag``), zero off it. ``np.trace`` and ``np.diag`` of a
  matrix are einsums.
* ``det``: ``g * det(A) * inv(A).T``; ``inv``: ``-Y.T @ g @ Y.T`` with ``Y = inv(A)``;
  ``solve``: ``lam = solve(A.T, g)`` gives ``lam`` for the right-hand side and
  ``-outer(lam, x)`` (``-lam @ x.T``) for ``A``, a solve with the transpose, no inverse (Giles,
  "An extended collection of matrix derivative results", 2008).
* ``norm``: ``g * x / norm``, and 0 where the norm is 0 (the zero vector's subgradient of
  least norm; README, "Rules at the edges of their domains").
* ``concat``/``stack``: each operand's adjoint is its slice of the result's adjoint.
* ``convolve``: the adjoint of the mode's output is put in place in the full convolution's
  (zeros around it), whose adjoints are ``correlate(G, v, "valid")`` for ``a`` and
  ``correlate(G, a, "valid")`` for ``v``; ``correlate``'s own (for completeness: it appears in
  adjoints only) are ``convolve(g, v)`` and ``correlate(a, g, "valid")``.
* ``interp``: ``interp_weights(x, xp, g)`` for ``fp`` (each point's adjoint split between the
  two values it lies between), ``g * interp_slope(x, xp, fp)`` for ``x`` and
  ``interp_breaks(x, xp, fp, g)`` for the breakpoints ``xp``.
"""

from __future__ import annotations

from typing import Callable, Optional

from ..ssa import array_ops, build
from ..ssa.ir import Builder, Value
from ..ssa.types import F64, I64
from .array_rules import _guarded, arr, ew, neg
from .rules import Contribs, OpView, rule

P = array_ops.PREFIX


def _dim(b: Builder, x: Value, axis: int) -> Value:
    return b.op1("dim", [x], I64, axis=axis)


def _t(b: Builder, x: Value) -> Value:
    return arr(b, "transpose", [x])


# ---------------------------------------------------------------- einsum
def contract(b: Builder, factors: list[tuple[str, Value]], target: str,
             extent: Callable[[str], Value]) -> Value:
    """The einsum of ``factors`` (term, value) onto the distinct letters ``target``, spelled as
    simply as it can be: scalars multiply the result, one array already in place is itself, a
    matrix with its letters swapped a transpose. ``extent(c)``: the extent of letter ``c``, for
    the letters of ``target`` no factor has (stretched with ones)."""
    scale: Optional[Value] = None
    for term, v in factors:
        if not term:
            scale = v if scale is None else build.mul(b, scale, v)
    arrays = [(t, v) for t, v in factors if t]
    if not arrays:
        value = scale if scale is not None else build.const(b, 1.0, F64)
        return arr(b, "full", [*[extent(c) for c in target], value])
    have = set("".join(t for t, _ in arrays))
    arrays += [(c, arr(b, "full", [extent(c), build.const(b, 1.0, F64)])) for c in target if c not in have]
    if len(arrays) == 1 and arrays[0][0] == target:
        out = arrays[0][1]
    elif len(arrays) == 1 and len(target) == 2 and arrays[0][0] == target[::-1]:
        out = _t(b, arrays[0][1])
    else:
        subs = ",".join(t for t, _ in arrays) + "->" + target
        out = arr(b, "einsum", [v for _, v in arrays], subs=subs)
    return out if scale is None else ew(b, "mul", scale, out)


@rule(P + "einsum")
def _einsum(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    terms, out = array_ops.einsum_terms(op.attrs["subs"])  # type: ignore[attr-defined]
    xs = list(op.operands)

    def extent(c: str) -> Value:
        k = next(k for k, t in enumerate(terms) if c in t)
        return _dim(b, xs[k], terms[k].index(c))

    contribs: Contribs = []
    for k, term in enumerate(terms):
        if not active[k]:
            contribs.append(None)
            continue
        diagonal = len(set(term)) < len(term)  # "ii": only a matrix's diagonal (py_linalg)
        target = term[0] if diagonal else term
        others = [(t, v) for j, (t, v) in enumerate(zip(terms, xs)) if j != k]
        c = contract(b, [(out, g), *others], target, extent)
        contribs.append(arr(b, "diag", [c]) if diagonal else c)
    return contribs


@rule(P + "diag")
def _diag(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [arr(b, "einsum", [g], subs="ii->i") if active[0] else None]


# ---------------------------------------------------------------- linear algebra
@rule(P + "det")
def _det(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    if not active[0]:
        return [None]
    scale = build.mul(b, g, op.result)
    return [ew(b, "mul", scale, _t(b, arr(b, "inv", [op.operands[0]])))]


@rule(P + "logdet")
def _logdet(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # d log|det A| / dA = inv(A).T, whatever the sign of the determinant.
    if not active[0]:
        return [None]
    return [ew(b, "mul", g, _t(b, arr(b, "inv", [op.operands[0]])))]


@rule(P + "detsign")
def _detsign(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    return [None]  # piecewise constant


@rule(P + "tril")
def _tril(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    k = op.attrs.get("k", 0)  # type: ignore[attr-defined]
    return [(arr(b, "tril", [g], k=k) if k else arr(b, "tril", [g])) if active[0] else None]


@rule(P + "cholesky")
def _cholesky(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # A = L L.T, of A's lower triangle (NumPy reads no other entry): with P = Phi(L.T @ g), the
    # lower triangle with its diagonal halved, and S = L^-T P L^-1 (two triangular solves, no
    # inverse), the adjoint is S + S.T on A's strict lower triangle and S's diagonal on the
    # diagonal (Murray, "Differentiation of the Cholesky decomposition", 2016).
    if not active[0]:
        return [None]
    low = op.result
    lt = _t(b, low)
    m = arr(b, "matmul", [lt, g])
    phi = ew(b, "sub", arr(b, "tril", [m]), ew(b, "mul", build.const(b, 0.5, F64), _diagonal(b, m)))
    s = _t(b, arr(b, "solve", [lt, _t(b, arr(b, "solve", [lt, phi]))]))
    return [_lower_of_symmetric(b, s)]


@rule(P + "eigvalsh")
def _eigvalsh(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # A = V diag(w) V.T (np.linalg.eigh, of A's lower triangle): dw = diag(V.T dA V), so the adjoint
    # of the symmetric matrix is V diag(g) V.T (the columns of V scaled by g, times V.T).
    if not active[0]:
        return [None]
    v = arr(b, "eigvecsh", [op.operands[0]])
    return [_lower_of_symmetric(b, arr(b, "matmul", [ew(b, "mul", v, g), _t(b, v)]))]


@rule(P + "eigvecsh")
def _eigvecsh(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # dV = V (F o (V.T dA V)) with F[i][j] = 1 / (w[j] - w[i]) off the diagonal and 0 on it, so the
    # adjoint of the symmetric matrix is V (F o (V.T g)) V.T (the eigenvalues distinct: a repeated
    # one has no eigenvectors to differentiate, and F is infinite there). F is (1 - I) / (D + I),
    # D[i][j] = w[j] - w[i]: exact off the diagonal, 0 on it.
    if not active[0]:
        return [None]
    v = op.result
    w = arr(b, "eigvalsh", [op.operands[0]])
    ones = arr(b, "full", [_dim(b, w, 0), build.const(b, 1.0, F64)])
    eye = arr(b, "diag", [ones])
    gaps = ew(b, "sub", arr(b, "outer", [ones, w]), arr(b, "outer", [w, ones]))
    f = ew(b, "div", ew(b, "sub", build.const(b, 1.0, F64), eye), ew(b, "add", gaps, eye))
    inner = ew(b, "mul", f, arr(b, "matmul", [_t(b, v), g]))
    return [_lower_of_symmetric(b, arr(b, "matmul", [arr(b, "matmul", [v, inner]), _t(b, v)]))]


def _lower_of_symmetric(b: Builder, s: Value) -> Value:
    """The adjoint of a matrix NumPy reads as the symmetric matrix of its lower triangle, from the
    adjoint ``s`` of that symmetric matrix: ``s + s.T`` on the strict lower triangle (each entry
    stands there and at its mirror), ``s``'s diagonal on the diagonal, nothing above it."""
    return ew(b, "sub", arr(b, "tril", [ew(b, "add", s, _t(b, s))]), _diagonal(b, s))


def _diagonal(b: Builder, m: Value) -> Value:
    """The diagonal matrix of ``m``'s diagonal (``np.diag(np.diag(m))``)."""
    return arr(b, "diag", [arr(b, "einsum", [m], subs="ii->i")])


@rule(P + "inv")
def _inv(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    if not active[0]:
        return [None]
    yt = _t(b, op.result)
    return [neg(b, arr(b, "matmul", [arr(b, "matmul", [yt, g]), yt]))]


@rule(P + "solve")
def _solve(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    a, x = op.operands[0], op.result
    lam = arr(b, "solve", [_t(b, a), g])
    da = None
    if active[0]:
        da = neg(b, arr(b, "outer", [lam, x]) if x.type.rank == 1 else arr(b, "matmul", [lam, _t(b, x)]))
    return [da, lam if active[1] else None]


@rule(P + "norm")
def _norm(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    if not active[0]:
        return [None]
    x, n = op.operands[0], op.result
    # Where the norm is 0, x is 0 there too: any finite quotient gives the adjoint 0.
    q = ew(b, "div", g, _guarded(b, n, n, 1.0))
    axis = op.attrs.get("axis")  # type: ignore[attr-defined]
    if axis is not None and q.type.is_array:
        q = arr(b, "broadcast", [q, x], axis=axis)
    return [ew(b, "mul", x, q)]


# ---------------------------------------------------------------- stacking
def _sizes_sum(b: Builder, parts: list[Value], axis: int) -> Value:
    total = build.const(b, 0, I64)
    for v in parts:
        total = build.add(b, total, _part_extent(b, v, axis))
    return total


def _part_extent(b: Builder, v: Value, axis: int) -> Value:
    """A concatenated part's extent: the one it was made with where it is ``np.full`` (the
    ``[0.0]`` of ``np.concatenate(([0.0], x))``, which the adjoint then need not keep), else its own."""
    made = v.defining_op
    if made is not None and made.name == P + "full":
        return made.operands[axis]
    return _dim(b, v, axis)


@rule(P + "concat")
def _concat(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    axis = op.attrs["axis"]  # type: ignore[attr-defined]
    parts = list(op.operands)
    contribs: Contribs = []
    for k, v in enumerate(parts):
        if not active[k]:
            contribs.append(None)
            continue
        lo = _sizes_sum(b, parts[:k], axis)
        bounds: list[Value] = []
        for ax in range(g.type.rank):
            if ax == axis:  # (the last part runs to the end: its slice reads d[lo:])
                hi = _dim(b, g, axis) if k == len(parts) - 1 else build.add(b, lo, _part_extent(b, v, axis))
                bounds += [lo, hi]
            else:
                bounds += [build.const(b, 0, I64), _dim(b, g, ax)]
        contribs.append(arr(b, "slice", [g, *bounds], axes=["r"] * g.type.rank))
    return contribs


@rule(P + "stack")
def _stack(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    axis = op.attrs["axis"]  # type: ignore[attr-defined]
    contribs: Contribs = []
    for k in range(len(op.operands)):
        if not active[k]:
            contribs.append(None)
            continue
        bounds: list[Value] = []
        for ax in range(g.type.rank):
            if ax == axis:
                bounds.append(build.const(b, k, I64))
            else:
                bounds += [build.const(b, 0, I64), _dim(b, g, ax)]
        axes = ["i" if ax == axis else "r" for ax in range(g.type.rank)]
        contribs.append(arr(b, "slice", [g, *bounds], axes=axes))
    return contribs


# ---------------------------------------------------------------- convolution
@rule(P + "convolve")
def _convolve(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    a, v = op.operands
    mode = op.attrs["mode"]  # type: ignore[attr-defined]
    full = g
    if mode != "full":
        # The output is full[off:off + len], off = shorter - 1 ('valid') or (shorter - 1) // 2
        # ('same'); zeros take the other places of the full convolution's adjoint.
        n, m = _dim(b, a, 0), _dim(b, v, 0)
        shorter = build.select(b, build.cmp(b, "lt", n, m), n, m)
        before = build.sub(b, shorter, build.const(b, 1, I64))
        if mode == "same":
            before = build.binary(b, "floordiv", before, build.const(b, 2, I64))
        count = build.sub(b, build.add(b, n, m), build.const(b, 1, I64))  # the full convolution's length
        after = build.sub(b, build.sub(b, count, before), _dim(b, g, 0))
        zero = build.const(b, 0.0, F64)
        full = arr(b, "concat", [arr(b, "full", [before, zero]), g, arr(b, "full", [after, zero])], axis=0)
    da = arr(b, "correlate", [full, v], mode="valid") if active[0] else None
    dv = arr(b, "correlate", [full, a], mode="valid") if active[1] else None
    return [da, dv]



@rule(P + "correlate")
def _correlate(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # c[k] = sum_j a[k + j] v[j] ('valid', len(a) >= len(v)): the adjoint of a is the full
    # convolution of g with v, that of v the correlation of a with g.
    a, v = op.operands
    da = arr(b, "convolve", [g, v], mode="full") if active[0] else None
    dv = arr(b, "correlate", [a, g], mode="valid") if active[1] else None
    return [da, dv]


# ---------------------------------------------------------------- interpolation
@rule(P + "interp")
def _interp(b: Builder, op: OpView, g: Value, active: list[bool]) -> Contribs:
    # np.interp(x, xp, fp) is fp[j] * (1 - w) + fp[j + 1] * w between xp[j] and xp[j + 1], with
    # w = (x - xp[j]) / (xp[j + 1] - xp[j]): linear in fp (each point's g split by its weights),
    # and in x of the piece's slope; moving a breakpoint tilts the piece (``interp_breaks``).
    x, xp, fp = op.operands
    dx = ew(b, "mul", g, arr(b, "interp_slope", [x, xp, fp])) if active[0] else None
    dxp = arr(b, "interp_breaks", [x, xp, fp, g]) if active[1] else None
    dfp = arr(b, "interp_weights", [x, xp, g]) if active[2] else None
    return [dx, dxp, dfp]
