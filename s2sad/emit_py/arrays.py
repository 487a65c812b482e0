"""Python spelling of the whole-array ops (``arr.``): idiomatic NumPy, or what Numba compiles.

The NumPy form is what a person writes: ``W @ x + b``, ``np.tanh(h)``,
``np.sum(e, axis=1, keepdims=True)``, ``A.T``, ``np.outer(d_z, x)``. For
``--target numba`` a few spellings change to forms nopython mode compiles
without SciPy (which Numba needs for ``@``/``np.dot``) and without the
``keepdims``/``axis`` arguments it lacks: matrix products become broadcast
products summed over the shared axis, ``keepdims`` an ``np.expand_dims`` and a
mean over an axis a sum divided by the extent, and ``max``/``min`` over an axis
of a matrix a list comprehension over its rows or columns (other ranks are
reported as unsupported, see ``numba_unsupported``).

In a ``parallel=True`` function (one with a ``numba.prange`` loop), Numba's array analysis
checks that the extents of two arrays a binary operator broadcasts are equal, unless it can see
that one of them is 1: it sees the 1 of a reshape to literal extents, not the one
``np.expand_dims`` adds (the check stops the program: "Sizes of ... do not match"). There the
axis a ``keepdims`` reduction or a matrix product adds is a reshape to the extents spelled out,
``np.sum(W, axis=1).reshape((W.shape[0], 1))``, and a vector times a matrix is
``np.sum(W.T * x, axis=1)``, which adds none.
"""

from __future__ import annotations

from typing import Callable, Optional, Union

from ..opt.array_simplify import shape_source
from ..ssa import array_ops
from ..ssa.attrs import GENERIC_MATH
from ..ssa.mathfns import MATH
from ..ssa.ir import Op, Value
from ..ssa.types import BOOL
from ..emit.expr import (Attribute, BinOp, Compare, Expr, Lit, Range, Subscript, Unary, call,
                         module_attr, negate, number, square)

P = array_ops.PREFIX

_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%", "pow": "**"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_UFUNC = {
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
    "atanh": "arctanh", "atan2": "arctan2",
}


# Einsums with a NumPy function of their own (``np.trace``, ``np.diag`` of a matrix).
_EINSUM_NAMED = {"ii->": "np.trace", "ii->i": "np.diag"}


class ArrayBinOp(BinOp):
    """A NumPy operator on arrays: never rewritten to ``x += e``, which would write ``x``'s
    memory in place while another name may still refer to the same array."""


def scipy_ufunc(op: Op) -> Optional[str]:
    """The name of the ufunc of ``scipy.special`` that computes ``op``, an elementwise function NumPy
    has no ufunc of (``gammaln``), or None. The output imports it from there."""
    if op.name.startswith(P + "math."):
        row = MATH[op.name[len(P) + 5:]]
    elif op.name.startswith("math.") and op.attrs.get(GENERIC_MATH):  # of a shape-generic value
        row = MATH[op.name[5:]]
    else:
        return None
    return row.scipy if not row.ufunc else None


def _where(op: Op, a: list[Expr]) -> Expr:
    """``np.where(c, x, y)``; of booleans, the mask operators it stands for: ``c & x`` (x where c
    holds, else False), ``c | y``, ``~c``, ``c ^ y`` (``parse.py_arrays.logical``)."""
    def flag(v: Value) -> Optional[bool]:
        d = v.defining_op
        return d.attrs["value"] if d is not None and d.name == "const" and isinstance(d.attrs["value"], bool) else None

    c, x, y = op.operands
    if op.result.type.elem == BOOL and c.type.is_array:  # type: ignore[attr-defined]
        fx, fy = flag(x), flag(y)
        if (fx, fy) == (False, True):
            return Unary("~", a[0])
        if fy is False and fx is None:
            return ArrayBinOp("&", a[0], a[1])
        if fx is True and fy is None:
            return ArrayBinOp("|", a[0], a[2])
        d = x.defining_op
        if d is not None and d.name == P + "where" and d.operands[0] is y and [flag(v) for v in d.operands[1:]] == [
                False, True]:
            return ArrayBinOp("^", a[0], a[2])
    return call("np.where", *a)


def numba_unsupported(op: Op) -> Optional[str]:
    """Why ``op`` has no Numba spelling, or None."""
    n = op.name[len(P):]
    if n in ("max", "min", "prod") and op.attrs.get("axis") is not None and op.operands[0].type.rank != 2:
        return f"np.{n}(..., axis=) of an array of rank other than 2 does not compile under Numba"
    if n in ("mask", "accum_mask") and op.operands[1].type.rank != 1:
        return "indexing with a boolean array of more than one dimension does not compile under Numba"
    return None


def _cumsum(op: Op, x: Expr) -> Expr:
    """``np.cumsum(x)``, along an axis of a matrix; reversed (from the end), the adjoint's form."""
    axis = op.attrs["axis"]
    vector = op.operands[0].type.rank == 1
    if not op.attrs.get("reverse"):
        return call("np.cumsum", x) if vector else call("np.cumsum", x, axis=number(axis))
    if vector:
        backwards = Subscript(x, (Lit("::-1"),))
        return Subscript(call("np.cumsum", backwards), (Lit("::-1"),))
    return call("np.flip", call("np.cumsum", call("np.flip", x, number(axis)), axis=number(axis)), number(axis))


def _cumsum_in_rows(op: Op, x: Expr, helper) -> Expr:
    """``np.cumsum`` along an axis of a matrix under Numba, whose np.cumsum takes no axis: a helper
    that sums each row (of the transpose for axis 0; reversed: of the matrix read from the end)."""
    axis = op.attrs["axis"]
    rows = x if axis == 1 else Attribute(x, "T")
    if not op.attrs.get("reverse"):
        r = helper("cumsum_in_rows", [rows])
        return r if axis == 1 else Attribute(r, "T")
    backwards = (Lit(":"), Lit("::-1"))
    r = Subscript(helper("cumsum_in_rows", [Subscript(rows, backwards)]), backwards)
    return r if axis == 1 else Attribute(r, "T")


def _same_width(u: Value, v: Value) -> bool:
    c = u.defining_op
    d = v.defining_op
    return u is v or (c is not None and d is not None and c.name == d.name == "const"
                      and c.attrs["value"] == d.attrs["value"])


def _pad_widths(op: Op, a: list[Expr], short: bool = True) -> Expr:
    """np.pad's ``pad_width`` from the op's operands (lo, hi per axis, after the array): as the user
    writes it where they allow (``short``): ``1`` where all are one width, ``(1, 2)`` where every axis
    has the same pair; else a pair per axis."""
    rank = op.operands[0].type.rank
    lows, highs = op.operands[1:1 + 2 * rank:2], op.operands[2:2 + 2 * rank:2]
    pairs = [_tuple([a[1 + 2 * k], a[2 + 2 * k]]) for k in range(rank)]
    if short and all(_same_width(lo, lows[0]) for lo in lows) and all(_same_width(hi, highs[0]) for hi in highs):
        return a[1] if _same_width(lows[0], highs[0]) else pairs[0]
    return _tuple(pairs)


def _pad(op: Op, a: list[Expr], numba: bool, helper) -> Expr:
    """``np.pad(x, 1, mode="edge")``; ``np.pad(x, 1)`` in mode "constant" with 0 (NumPy's default);
    under Numba, which has no np.pad, the helper ``pad`` (a pair of widths per axis)."""
    mode = op.attrs["mode"]
    if numba:
        value = [a[-1]] if mode == "constant" else []
        return helper("pad", [a[0], _pad_widths(op, a, short=False), number(mode), *value])
    widths = _pad_widths(op, a)
    if mode != "constant":
        return call("np.pad", a[0], widths, mode=number(mode))
    value = op.operands[-1].defining_op
    if value is not None and value.name == "const" and value.attrs["value"] == 0:
        return call("np.pad", a[0], widths)
    return call("np.pad", a[0], widths, constant_values=a[-1])


def _roll(op: Op, x: Expr, shift: Expr, numba: bool, helper) -> Expr:
    """``np.roll(x, shift)``, ``np.roll(x, shift, axis=k)``; under Numba, whose np.roll takes no
    axis (it rolls the flattened array), a matrix's is the helper ``roll_axis``."""
    axis, rank = op.attrs["axis"], op.operands[0].type.rank
    if rank == 1:
        return call("np.roll", x, shift)
    if not numba:
        return call("np.roll", x, shift, axis=number(axis))
    return helper("roll_axis", [x, shift, number(axis)])


def _dims(x: Expr, k: int) -> Expr:
    return Subscript(Attribute(x, "shape"), (Lit(str(k)),))


def _of_arrays_with_many_axes(op: Op) -> bool:
    """Whether ``op`` combines two arrays into one of 3 axes or more, which Numba output computes
    flattened (``special.elementwise`` says why)."""
    return op.result.type.rank >= 3 and all(v.type.is_array for v in op.operands)  # type: ignore[attr-defined]


def array_expr(op: Op, e: Callable[[Value], Expr], numba: bool, parallel: bool = False,
               helper: Optional[Callable[[str, list[Expr]], Expr]] = None,
               ufunc: Optional[Callable[[str, Expr], Expr]] = None, generic: bool = False) -> Expr:
    """The expression computing ``op`` (an ``arr.`` op with a result); ``parallel``: in a Numba
    function with ``parallel=True`` (see the module's docstring); ``helper(name, args)``: a call
    of a function of ``ssa.special`` the output defines; ``ufunc(fn, x)``: Numba output's ufunc of
    math function ``fn`` (one NumPy lacks) applied to ``x``; ``generic``: the operand spread may be
    an array when Numba output runs (computed from a shape-generic parameter)."""
    n = op.name[len(P):]
    a = [e(v) for v in op.operands]
    if n == "cumsum":
        return _cumsum_in_rows(op, a[0], helper) if numba and op.operands[0].type.rank == 2 else _cumsum(op, a[0])
    if n == "roll":
        return _roll(op, a[0], a[1], numba, helper)
    if n == "pad":
        return _pad(op, a, numba, helper)
    if n == "unpad":  # (each axis's widths a pair, as the helper reads them)
        assert helper is not None
        return helper("unpad", [a[0], _pad_widths(op, a, short=False), number(op.attrs["mode"])])
    if n == "prod_others":
        assert helper is not None
        axis = op.attrs.get("axis")
        if axis is None:
            return helper("prod_of_others", [a[0]])
        if axis == 1:
            return helper("prod_of_others_in_rows", [a[0]])
        return Attribute(helper("prod_of_others_in_rows", [Attribute(a[0], "T")]), "T")
    if n == "pow" and square(a[0], a[1]) is not None:
        return ArrayBinOp("*", a[0], a[0])  # x * x, as for numbers (emit.expr.square)
    if n in _BINARY:
        if numba and not generic and _of_arrays_with_many_axes(op):
            assert helper is not None
            return helper("elementwise", [a[0], Lit(f'"{_BINARY[n]}"'), a[1]])
        return ArrayBinOp(_BINARY[n], a[0], a[1])
    if n in ("maximum", "minimum"):
        return call(f"np.{n}", a[0], a[1])
    if n in ("ne", "eq") and op.operands[0] is op.operands[1]:  # x != x: where x is NaN (np.isnan,
        nan = call("np.isnan", a[0])  # which linters take for what it is)
        return nan if n == "ne" else call("np.logical_not", nan)
    if n in _COMPARE:
        return Compare(_COMPARE[n], a[0], a[1])
    if n == "neg":
        return negate(a[0])
    if n.startswith("math."):
        fn = n[5:]
        scipy = scipy_ufunc(op)
        if scipy is not None and numba:  # Numba compiles no SciPy: a ufunc of the function on numbers
            assert ufunc is not None
            return ufunc(fn, a[0])
        if scipy == "polygamma":
            return call(scipy, number(1), a[0])  # trigamma
        if scipy is not None:
            return call(scipy, a[0])
        return call(f"np.{_UFUNC.get(fn, fn)}", *a)
    if n == "where":
        return _where(op, a)
    if n in array_ops.REDUCTIONS:
        return _reduction(op, n, a[0], numba, parallel, helper)
    if n == "matmul":
        return _matmul(op, a[0], a[1], parallel, helper) if numba else ArrayBinOp("@", a[0], a[1])
    if n == "outer":
        return call("np.outer", a[0], a[1])
    if n == "transpose":
        return Attribute(a[0], "T")
    if n == "full":
        shape = a[0] if len(a) == 2 else _tuple(a[:-1])
        value = op.operands[-1]
        c = value.defining_op
        if c is not None and c.name == "const" and c.attrs["value"] in (0.0, 1.0):
            fn = "np.ones" if c.attrs["value"] == 1.0 else "np.zeros"
            if value.type.is_float:
                return call(fn, shape)
            return call(fn, shape, dtype=module_attr("np", "int64" if value.type.is_int else "bool_"))
        return call("np.full", shape, a[-1])
    if n == "broadcast":
        g, like = a
        if not op.operands[0].type.is_array:
            if op.operands[1].type.elem != op.result.type.elem:  # type: ignore[attr-defined]
                # a float spread over an integer array's shape: np.full_like would make it integers
                return call("np.full", Attribute(like, "shape"), g)
            if generic and numba:  # Numba's np.full_like takes a number only (like: maybe a number)
                assert helper is not None
                return helper("spread", [g, like])
            return call("np.full_like", like, g)
        if "axis" in op.attrs:
            g = call("np.expand_dims", g, number(op.attrs["axis"]))
        return call("np.broadcast_to", g, Attribute(like, "shape"))
    if n == "reshape":
        # Numba reshapes contiguous arrays only (NumPy copies the others).
        src = call("np.ascontiguousarray", a[0]) if numba else a[0]
        return call(Attribute(src, "reshape"), a[1] if len(a) == 2 else _tuple(a[1:]))
    if n == "argsort":
        kind = op.attrs.get("kind")
        if kind is None:  # a stable sort: one order of ties, Numba's as NumPy's
            return call("np.argsort", a[0], kind=Lit('"mergesort"'))
        if numba:  # Numba's quicksort is not NumPy's: equal entries would come out in another order
            assert helper is not None
            return helper("argsort_untied", [a[0]])
        return call("np.argsort", a[0]) if kind == "quicksort" else call("np.argsort", a[0], kind=Lit(f'"{kind}"'))
    if n in ("take", "mask"):
        return Subscript(a[0], tuple(a[1:]))
    if n == "slice":
        return Subscript(a[0], _slice_index(op, op.operands[0], op.operands[1:], e))
    if n == "sum_to_shape":
        assert helper is not None
        return helper("sum_to_shape", [a[0], *(call("np.shape", m) for m in a[1:])])
    if n == "sum_to":
        g = a[0]
        lead = op.operands[0].type.rank - op.operands[1].type.rank
        if lead:
            axis = number(0) if lead == 1 else _tuple([number(k) for k in range(lead)])
            g = call("np.sum", g, axis=axis)
        for k in op.attrs.get("keep", []):
            g = _keepdims(call("np.sum", g, axis=number(k)), k, numba, op.operands[1].type.rank)
        return g
    if n in ("interp_weights", "interp_slope", "interp_breaks"):
        assert helper is not None
        return _interp_helper(op, n, a, helper)
    if n in array_ops.LINALG:
        return _linalg(op, n, a, numba)
    raise NotImplementedError(f"Python emitter: no expression for op {op.name}")


def _linalg(op: Op, n: str, a: list[Expr], numba: bool) -> Expr:
    """The spelling of an op of ``array_ops.LINALG``."""
    axis = op.attrs.get("axis")
    if n == "einsum":
        subs = op.attrs["subs"]
        named = _EINSUM_NAMED.get(subs)
        if named:
            return call(named, *a)
        return _einsum_broadcast(subs, a) if numba else call("np.einsum", Lit(f'"{subs}"'), *a)
    if n == "diag":
        return call("np.diag", a[0])
    if n in ("det", "inv", "solve", "cholesky"):
        return call(f"np.linalg.{n}", *a)
    if n in ("eigvalsh", "eigvecsh"):  # np.linalg.eigh's (eigenvalues, eigenvectors)
        return Subscript(call("np.linalg.eigh", *a), (number(0 if n == "eigvalsh" else 1),))
    if n in ("logdet", "detsign"):  # np.linalg.slogdet's (sign, logabsdet)
        return Subscript(call("np.linalg.slogdet", *a), (number(1 if n == "logdet" else 0),))
    if n == "tril":  # (k: the diagonal it keeps up to, above the main one where positive)
        return call("np.tril", a[0], number(op.attrs["k"])) if op.attrs.get("k") else call("np.tril", a[0])
    if n == "interp":
        return call("np.interp", *a)
    if n == "norm":
        if numba:  # (Numba's np.linalg.norm takes no axis=, and needs SciPy)
            squares = ArrayBinOp("*", a[0], a[0])
            total = call("np.sum", squares) if axis is None else call("np.sum", squares, axis=number(axis))
            return call("np.sqrt", total)
        return call("np.linalg.norm", a[0]) if axis is None else call("np.linalg.norm", a[0], axis=number(axis))
    if n in ("concat", "stack"):
        fn = "np.concatenate" if n == "concat" else "np.stack"
        return call(fn, _tuple(a)) if axis == 0 else call(fn, _tuple(a), axis=number(axis))
    mode = op.attrs["mode"]  # convolve, correlate
    if mode == ("full" if n == "convolve" else "valid"):  # NumPy's default
        return call(f"np.{n}", a[0], a[1])
    return call(f"np.{n}", a[0], a[1], mode=Lit(f'"{mode}"'))


def _interp_helper(op: Op, n: str, a: list[Expr], helper) -> Expr:
    """The adjoints of ``np.interp`` (``ssa.special``): at a number, of one-point arrays."""
    if op.operands[0].type.is_array:
        return helper(n, a)
    one = [call("np.full", number(1), a[0]), *a[1:]]
    if n != "interp_slope":  # and the adjoint of the value at it
        one[-1] = call("np.full", number(1), a[-1])
    out = helper(n, one)
    return out if n != "interp_slope" else Subscript(out, (number(0),))


def _einsum_broadcast(subs: str, a: list[Expr]) -> Expr:
    """An einsum as Numba compiles it (it has no ``np.einsum``): each operand's axes put in the
    order of the letters (the output's first, then the summed ones), with ``None`` for the
    letters it lacks, the broadcast product summed over the trailing, summed axes:
    ``i,ij,j->`` is ``np.sum(x[:, None] * A * y)``. (It makes the whole product: for clarity and
    Numba, not for speed.)"""
    terms, out = array_ops.einsum_terms(subs)
    everything = "".join(terms)
    letters = list(out) + sorted(set(everything) - set(out), key=everything.index)
    product: Optional[Expr] = None
    for term, x in zip(terms, a):
        if len(set(term)) < len(term):  # "ii": the diagonal
            x, term = call("np.diag", x), term[0]
        order = sorted(term, key=letters.index)
        if list(order) != list(term):
            perm = [term.index(c) for c in order]
            x = Attribute(x, "T") if perm == [1, 0] else call(Attribute(x, "transpose"), _tuple(
                [number(k) for k in perm]))
        first = min(letters.index(c) for c in term)
        index = [Lit(":") if c in term else Lit("None") for c in letters[first:]]
        if any(isinstance(i, Lit) and i.text == "None" for i in index):
            x = Subscript(x, tuple(index))
        product = x if product is None else ArrayBinOp("*", product, x)
    assert product is not None
    if not out:
        return call("np.sum", product)
    for axis in reversed(range(len(out), len(letters))):
        product = call("np.sum", product, axis=number(axis))
    return product


def accum_slice_target(op: Op, e: Callable[[Value], Expr], shadowed: Optional[Value] = None) -> Expr:
    """The target of ``arr.accum_slice``: ``d_a[lo:hi, j]``; ``shadowed``: the array ``d_a`` is the
    shadow of, where known (a parameter's), whose extents are ``d_a``'s too."""
    dst = op.operands[0]
    return Subscript(e(dst), _slice_index(op, _extents_of(dst, shadowed), op.operands[2:], e))


def _extents_of(dst: Value, shadowed: Optional[Value]) -> list[Value]:
    """The arrays known to have ``dst``'s extents: itself and the array it shadows. Only their
    extents are left out of a slice of it (``d_x[:len(obs)]`` is not ``d_x[:]``)."""
    return [dst] + ([shadowed] if shadowed is not None else [])


def _extent_key(a: Value, axis: int) -> object:
    """What ``a``'s extent along ``axis`` is known to be: the extent of the array it was allocated
    like (``np.zeros(x.shape[0])``: ``x``'s), the value it was allocated with, or its own."""
    for _ in range(32):
        a = shape_source(a)
        op = a.defining_op
        if op is None or op.name != "alloc" or len(op.operands) != a.type.rank or axis >= len(op.operands):
            return (a, axis)
        d = op.operands[axis].defining_op
        if d is None or d.name != "dim":
            return op.operands[axis]
        a, axis = d.operands[0], d.attrs["axis"]
    return (a, axis)


def _slice_index(op: Op, arr: Union[None, Value, list[Value]], bounds: list[Value], e: Callable[[Value], Expr]
                 ) -> tuple[Expr, ...]:
    """The subscript of ``arr.slice``/``arr.accum_slice``, with bounds spelled as the user would:
    ``0`` and the extent left out, ``extent - c`` as ``-c`` (extents of ``arr``, or of any of a
    list of arrays with its shape)."""
    out: list[Expr] = []
    k = 0
    for axis, kind in enumerate(op.attrs["axes"]):
        if kind == "i":
            out.append(e(bounds[k]))
            k += 1
            continue
        lo, hi = bounds[k], bounds[k + 1]
        k += 2
        lower = None if _is_int_const(lo, 0) else _from_end(lo, arr, axis) or e(lo)
        upper = None if _is_dim(hi, arr, axis) else _from_end(hi, arr, axis) or e(hi)
        out.append(Range(lower, upper))
    return tuple(out)


def _is_int_const(v: Value, value: int) -> bool:
    op = v.defining_op
    return op is not None and op.name == "const" and op.attrs["value"] == value


def _is_dim(v: Value, arr: Union[None, Value, list[Value]], axis: int) -> bool:
    """Whether ``v`` is the extent of ``arr`` along ``axis``: of ``arr`` (one of them) or of an
    array known to have its shape, not of another array (an adjoint's slice of a concatenation)."""
    op = v.defining_op
    if op is None or op.name != "dim" or op.attrs["axis"] != axis:
        return False
    arrays = arr if isinstance(arr, list) else [arr]
    key = _extent_key(op.operands[0], axis)
    return arr is None or any(shape_source(op.operands[0]) is shape_source(a) or _extent_key(a, axis) == key
                              for a in arrays)


def _from_end(v: Value, arr: Union[None, Value, list[Value]], axis: int) -> Optional[Expr]:
    """``-c`` for ``extent - c`` (``dim + const(-c)``), else None."""
    op = v.defining_op
    if op is None or op.name != "add" or not _is_dim(op.operands[0], arr, axis):
        return None
    c = op.operands[1].defining_op
    if c is not None and c.name == "const" and isinstance(c.attrs["value"], int) and c.attrs["value"] < 0:
        return number(c.attrs["value"])
    return None


def _tuple(elts: list[Expr]) -> Expr:
    from ..emit.expr import Tuple

    return Tuple(tuple(elts))


def _keepdims(reduced: Expr, axis: int, numba: bool, rank: int) -> Expr:
    """``reduced`` (a reduction along ``axis`` of an array of ``rank`` axes) with that axis kept."""
    if numba and rank == 1:  # (Numba's reduction of a vector is a number, which np.expand_dims refuses)
        return call("np.full", _tuple([number(1)]), reduced)
    if numba:
        return call("np.expand_dims", reduced, number(axis))
    assert isinstance(reduced, type(call("f")))
    return call(reduced.func, *reduced.args, **dict(reduced.kwargs), keepdims=Lit("True"))


def _reduction(op: Op, n: str, x: Expr, numba: bool, parallel: bool = False, helper=None) -> Expr:
    axis = op.attrs.get("axis")
    keep = bool(op.attrs.get("keepdims"))
    if axis is None:
        r = call(f"np.{n}", x)
        if keep:
            return call("np.full", _tuple([number(1)] * op.operands[0].type.rank), r) if numba else call(
                f"np.{n}", x, keepdims=Lit("True"))
        return r
    if numba and n == "mean":
        r = ArrayBinOp("/", call("np.sum", x, axis=number(axis)), _dims(x, axis))
    elif numba and n in ("max", "min", "prod"):
        # No axis= under Numba: a helper reduces each row of the matrix (of its transpose for axis
        # 0) in a loop. (Not np.array([np.max(x[k]) for k in range(...)]): Numba 0.68 miscompiles
        # that comprehension in a function with a conditional expression, the max's adjoint lost;
        # probe round 10.)
        assert helper is not None
        r = helper(f"{n}_of_rows", [x if axis == 1 else Attribute(x, "T")])
    else:
        r = call(f"np.{n}", x, axis=number(axis))
    if keep and parallel:  # the result of a reduction is a fresh, contiguous array
        return _reshaped(r, _extents(x, op.operands[0].type.rank, {axis: 1}))
    return _keepdims(r, axis, numba, op.operands[0].type.rank) if keep else r


def _extents(x: Expr, rank: int, fixed: dict[int, int]) -> list[Expr]:
    """``x.shape[k]`` for each axis of ``x`` (of rank ``rank``), a literal where ``fixed`` says."""
    return [number(fixed[k]) if k in fixed else _dims(x, k) for k in range(rank)]


def _reshaped(x: Expr, extents: list[Expr]) -> Expr:
    return call(Attribute(x, "reshape"), _tuple(extents))


def _matmul(op: Op, x: Expr, y: Expr, parallel: bool = False,
            helper: Optional[Callable[[str, list[Expr]], Expr]] = None) -> Expr:
    """``x @ y`` as Numba compiles it without SciPy: a product of two matrices of float64 the
    output's ``matmul`` (BLAS where SciPy is installed, else loops: a broadcast product would
    make an m x k x n array), others a broadcast product summed over the shared axis."""
    ranks = (op.operands[0].type.rank, op.operands[1].type.rank)
    if ranks == (2, 2) and helper is not None and not parallel \
            and all(str(v.type.elem) == "f64" for v in (*op.operands, op.result)):  # type: ignore[attr-defined]
        return helper("matmul", [x, y])
    if ranks == (1, 1):
        return call("np.sum", ArrayBinOp("*", x, y))
    if ranks == (2, 1):
        return call("np.sum", ArrayBinOp("*", x, y), axis=number(1))
    if ranks == (1, 2):
        if parallel:
            return call("np.sum", ArrayBinOp("*", Attribute(y, "T"), x), axis=number(1))
        return call("np.sum", ArrayBinOp("*", call("np.expand_dims", x, number(1)), y), axis=number(0))
    if parallel:  # (a reshape needs a contiguous array; Numba copies only one that is not)
        left = _reshaped(call("np.ascontiguousarray", x), [_dims(x, 0), _dims(x, 1), number(1)])
        right = _reshaped(call("np.ascontiguousarray", y), [number(1), _dims(y, 0), _dims(y, 1)])
        return call("np.sum", ArrayBinOp("*", left, right), axis=number(1))
    prod = ArrayBinOp("*", call("np.expand_dims", x, number(2)), call("np.expand_dims", y, number(0)))
    return call("np.sum", prod, axis=number(1))
