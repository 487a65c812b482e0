"""Lowering of NumPy's linear algebra, ``np.einsum``, stacking and convolution to ``arr.`` ops.

``py_arrays.call`` sends here the calls of ``py_intrinsics.LINALG_FUNCTIONS``:

* ``np.linalg.norm(x)`` (the 2-norm of a vector, the Frobenius norm of a matrix; ``axis=`` an
  integer literal: vector norms along it) is ``arr.norm``; ``ord=1`` and ``ord=np.inf`` are the
  sum and the maximum of ``np.abs(x)``, written with those ops;
* ``np.trace(A)`` and ``np.diag(A)`` of a matrix are the einsums ``ii->`` and ``ii->i``;
  ``np.diag(v)`` of a vector is ``arr.diag``; ``np.linalg.det``/``inv``/``solve`` their ops;
* ``np.einsum(subs, ...)`` with ``subs`` a string literal is ``arr.einsum``; the implicit form
  (no ``->``) gets NumPy's output (the letters used once, in alphabetical order);
* ``np.stack``/``np.concatenate``/``np.hstack``/``np.vstack``/``np.column_stack`` of a list or
  tuple written in the call are ``arr.stack``/``arr.concat`` (a vector in ``vstack`` or
  ``column_stack`` first reshaped to a row or a column, as NumPy does);
* ``np.convolve(a, v, mode)`` is ``arr.convolve``;
* ``np.interp(x, xp, fp)`` (points a number or a vector, ``xp`` and ``fp`` vectors) is
  ``arr.interp``; ``left=``, ``right=`` and ``period=`` are refused.

Everything else they could be given (an ellipsis in the subscripts, a letter repeated within a
term other than ``ii`` of a matrix, a list built elsewhere, an ``axis``/``ord``/``mode`` that is
not a literal, matrix norms other than Frobenius) is a diagnostic at the call.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional, Union

import libcst as cst

from ..ssa import array_ops, build
from ..ssa.ir import Builder, Value
from ..ssa.types import F64, I64
from . import py_arrays, py_extents, py_lists
from .py_arrays import ExprLowerer, arr_op, diagonal_offset
from .py_common import Env
from .py_module import dotted_source
from .py_intrinsics import PAIRS, PART_NAMES, pair_part
from .py_intrinsics import lookup as lib_lookup
from .py_types import STACKS_OF_ITEMS, int_literal, keyword_arg

if TYPE_CHECKING:
    from . import py_intrinsics as lib


def call(lw: ExprLowerer, intr: "lib.Intrinsic", node: cst.Call, b: Builder, env: Env,
         args: list[cst.BaseExpression]) -> Value:
    op = intr.op
    if op == "norm":
        return norm(lw, node, args, b, env)
    if op == "einsum":
        return einsum(lw, node, args, b, env)
    if op == "tensordot":
        x, y = lw.array(args[0], b, env), lw.array(args[1], b, env)
        subs = tensordot_subscripts(node, args, x.type.rank, y.type.rank)  # type: ignore[attr-defined]
        if isinstance(subs, tuple):
            raise lw.fail(subs[0], subs[1], hint="write axes=k, or axes=([axes of a], [axes of b])")
        return arr_op(lw, b, node, "einsum", [x, y], {"subs": subs})
    if op in ("stack", "concatenate", "hstack", "vstack", "column_stack"):
        return stacked(lw, op, node, args, b, env)
    if op == "convolve":
        a, v = lw.array(args[0], b, env), lw.array(args[1], b, env)
        return arr_op(lw, b, node, "convolve", [a, v], {"mode": _mode(lw, node, args)})
    if op == "interp":
        return interp(lw, node, args, b, env)
    if op == "kron":
        return kron(lw, node, lw.array(args[0], b, env), lw.array(args[1], b, env), b)
    x = lw.array(args[0], b, env)
    rank = x.type.rank  # type: ignore[attr-defined]
    k = diagonal_offset(lw, node) if op == "diag" else 0
    if k and rank == 1:  # np.diag(v, k): diag(v) padded to put v on the k-th diagonal
        square = arr_op(lw, b, node, "diag", [x])
        widths = [build.const(lw.at(b, node), w, I64) for w in ((0, k, k, 0) if k > 0 else (-k, 0, 0, -k))]
        return arr_op(lw, b, node, "pad", [square, *widths, lw.const(b, node, 0.0, F64)], {"mode": "constant"})
    if rank == 2 and op in ("trace", "diag", "diagonal") and (k or not _evidently_square(lw, x)):
        # np.diag(A, k): the main diagonal of A's square part from (0, k) or (-k, 0); of a matrix
        # not evidently square, NumPy's diagonal is as long as the shorter side
        at = lw.at(b, node)
        rows, cols = (at.op1("dim", [x], I64, axis=a) for a in (0, 1))
        row, col = build.const(at, max(0, -k), I64), build.const(at, max(0, k), I64)
        side = build.math(at, "min", build.sub(at, rows, row), build.sub(at, cols, col))
        if k:  # (an offset past the matrix: no diagonal)
            side = build.math(at, "max", side, build.const(at, 0, I64))
        x = arr_op(lw, b, node, "slice", [x, row, build.add(at, row, side), col, build.add(at, col, side)],
                   {"axes": ["r", "r"]})
    if op == "trace" or (op == "diag" and rank == 2) or op == "diagonal":
        if rank != 2:
            raise lw.fail(node, f"np.{op} takes a matrix; this array has rank {rank}")
        return arr_op(lw, b, node, "einsum", [x], {"subs": "ii->" if op == "trace" else "ii->i"})
    if op == "diag" and rank != 1:
        raise lw.fail(node, f"np.diag takes a vector or a matrix; this array has rank {rank}")
    if op == "solve":
        return arr_op(lw, b, node, "solve", [x, lw.array(args[1], b, env)])
    if op in PAIRS:
        a, c = PART_NAMES[op]
        raise lw.fail(node, f"np.linalg.{op} gives a pair ({a}, {c}): unpack it or take one part",
                      hint=f"{a[:4]}, {c[:4]} = np.linalg.{op}(A), or np.linalg.{op}(A)[1]")
    if op == "eigvalsh" and rank != 2:
        raise lw.fail(node, f"np.linalg.eigvalsh takes a matrix; this array has rank {rank}")
    if op in ("cholesky", "tril", "triu") and rank != 2:
        spelled = "np.linalg.cholesky" if op == "cholesky" else f"np.{op}"
        raise lw.fail(node, f"{spelled} takes a matrix; this array has rank {rank}")
    if op in ("tril", "triu"):  # np.triu(x, k) is x without np.tril(x, k - 1)
        k_node = keyword_arg(node, "k") or (args[1] if len(args) > 1 else None)
        k = 0 if k_node is None else int_literal(k_node)
        if k is None:
            raise lw.fail(k_node, f"np.{op}'s k must be an integer literal", hint="write k=1 or k=-1")
        if op == "tril":
            return arr_op(lw, b, node, "tril", [x], {"k": k} if k else {})
        lower = arr_op(lw, b, node, "tril", [x], {"k": k - 1} if k - 1 else {})
        return arr_op(lw, b, node, "sub", [x, lower])
    return arr_op(lw, b, node, op, [x])  # diag of a vector, det, inv, cholesky


def interp(lw: ExprLowerer, node: cst.Call, args: list[cst.BaseExpression], b: Builder, env: Env) -> Value:
    """``np.interp(x, xp, fp)``: piecewise linear interpolation of the points ``(xp, fp)`` at ``x``."""
    x = lw.value(args[0], b, env)
    xp, fp = lw.array(args[1], b, env), lw.array(args[2], b, env)
    for arg, v in ((args[0], x), (args[1], xp), (args[2], fp)):
        if v.type.is_array and v.type.rank != 1 or (arg is not args[0] and not v.type.is_array):  # type: ignore
            raise lw.fail(arg, "np.interp takes its points as a number or a vector, and xp and fp as vectors",
                          hint="interpolate a matrix's rows one at a time, or x.ravel()")
    return arr_op(lw, b, node, "interp", [lw.scalar_value(args[0], x) if not x.type.is_array else x, xp, fp])


def kron(lw: ExprLowerer, node: cst.Call, a: Value, c: Value, b: Builder) -> Value:
    """``np.kron(a, c)`` of two vectors or two matrices: every entry of ``a`` times the whole of
    ``c``, in ``a``'s order, as products that broadcast (the outer product for vectors; for
    matrices ``a`` as (m, 1, n, 1) times ``c`` as (1, p, 1, q)), reshaped to (m * p, n * q)."""
    ranks = (a.type.rank, c.type.rank)  # type: ignore[attr-defined]
    if ranks not in ((1, 1), (2, 2)):
        raise lw.fail(node, f"np.kron is supported of two vectors or two matrices; these have ranks {ranks[0]}, "
                      f"{ranks[1]}", hint="reshape the vector to a matrix first: v.reshape(1, -1)")
    at = lw.at(b, node)
    one = build.const(at, 1, I64)
    da = [at.op1("dim", [a], I64, axis=k) for k in range(ranks[0])]
    dc = [at.op1("dim", [c], I64, axis=k) for k in range(ranks[0])]
    if ranks == (1, 1):
        return arr_op(lw, b, node, "reshape", [arr_op(lw, b, node, "outer", [a, c]), build.mul(at, da[0], dc[0])])
    spread = arr_op(lw, b, node, "reshape", [a, da[0], one, da[1], one])
    placed = arr_op(lw, b, node, "reshape", [c, one, dc[0], one, dc[1]])
    product = arr_op(lw, b, node, "mul", [spread, placed])
    return arr_op(lw, b, node, "reshape", [product, build.mul(at, da[0], dc[0]), build.mul(at, da[1], dc[1])])


def pair_call(lw: ExprLowerer, node: cst.BaseExpression) -> Optional[tuple[str, cst.Call]]:
    """(the op, ``node``) if ``node`` calls a function that gives a pair (``py_intrinsics.PAIRS``:
    ``np.linalg.slogdet``, ``np.linalg.eigh``) with its one argument, else None."""
    if not isinstance(node, cst.Call) or len(node.args) != 1 or node.args[0].keyword is not None \
            or node.args[0].star:
        return None
    intr = lib_lookup(lw.info.canonical_name(node.func, lw.ctx.locals))
    return (intr.op, node) if intr is not None and intr.op in PAIRS else None


def pair_part_value(lw: ExprLowerer, op: str, node: cst.Call, part: str, b: Builder, env: Env) -> Value:
    """One part of a pair (``part``: the op of it, ``PAIRS``) of a matrix: the sign of its
    determinant or log |det|, its eigenvalues or its eigenvectors."""
    x = lw.array(node.args[0].value, b, env)
    if x.type.rank != 2:  # type: ignore[attr-defined]
        raise lw.fail(node, f"np.linalg.{op} takes a matrix; this array has rank {x.type.rank}")  # type: ignore
    return arr_op(lw, b, node, part, [x])


def pair_indexed(lw: ExprLowerer, node: cst.BaseExpression, b: Builder, env: Env) -> Optional[Value]:
    """``np.linalg.slogdet(A)[1]``, ``np.linalg.eigh(A).eigenvalues`` (one part of a pair), else None."""
    if not isinstance(node, (cst.Subscript, cst.Attribute)):
        return None
    found = pair_call(lw, node.value)
    if found is None:
        return None
    op, call_node = found
    part = pair_part(op, node)
    if part is None:
        names = PART_NAMES[op]
        raise lw.fail(node, f"np.linalg.{op}'s pair has the parts 0 ({names[0]}) and 1 ({names[1]})")
    return pair_part_value(lw, op, call_node, part, b, env)


def _is_inf(node: cst.BaseExpression) -> bool:
    src = dotted_source(node)
    return src is not None and (src == "inf" or src.endswith(".inf"))


def norm(lw: ExprLowerer, node: cst.Call, args: list, b: Builder, env: Env) -> Value:
    x = lw.array(args[0], b, env)
    rank = x.type.rank  # type: ignore[attr-defined]
    ord_node = args[1] if len(args) > 1 else keyword_arg(node, "ord")
    order: object = None
    if ord_node is not None and not (isinstance(ord_node, cst.Name) and ord_node.value == "None"):
        if int_literal(ord_node) in (1, 2):
            order = int_literal(ord_node)
        elif _is_inf(ord_node):
            order = "inf"
        elif isinstance(ord_node, cst.SimpleString) and ast.literal_eval(ord_node.value) == "fro":
            order = "fro"
        else:
            raise lw.fail(ord_node, "np.linalg.norm takes ord=None, 1, 2, np.inf or 'fro' here",
                          hint="write the norm out, e.g. np.sum(np.abs(x) ** p) ** (1 / p)")
    axis_node = keyword_arg(node, "axis")
    axis = None
    if axis_node is not None:
        k = int_literal(axis_node)
        if k is None:
            raise lw.fail(axis_node, "axis= must be an integer literal", hint="write axis=0 or axis=1")
        axis = k + rank if k < 0 else k
        if not 0 <= axis < rank:
            raise lw.fail(axis_node, f"axis {k} is out of range for a {rank}-D array")
    vector = axis is not None or rank == 1
    if rank > 2 and axis is None:
        raise lw.fail(node, f"np.linalg.norm of a rank-{rank} array needs axis=", hint="pass axis=k")
    if vector and order == "fro":
        raise lw.fail(ord_node, "ord='fro' is the norm of a matrix; this is a vector norm")
    if not vector and order not in (None, "fro"):
        raise lw.fail(ord_node, "of the matrix norms, only the Frobenius norm (the default) is supported",
                      hint="np.linalg.norm(A) is the Frobenius norm")
    attrs = {"axis": axis} if axis is not None else {}
    if order in (1, "inf"):  # sum or maximum of |x|: the rules of abs, sum and max apply
        mag = arr_op(lw, b, node, "math.abs", [x])
        return arr_op(lw, b, node, "sum" if order == 1 else "max", [mag], attrs)
    return arr_op(lw, b, node, "norm", [x], attrs)


def tensordot_subscripts(node: cst.Call, args: list, left: int, right: int
                         ) -> Union[str, tuple[cst.CSTNode, str]]:
    """The np.einsum subscripts of ``np.tensordot(a, b, axes)`` for operands of ``left`` and
    ``right`` axes: ``axes=k`` (2 if not given) contracts the last k axes of a with the first k
    of b, ``axes=([1, 0], [0, 1])`` the axes named, in pairs; the result has a's other axes, then
    b's. A located problem (the node, what is wrong) where the axes are not literals or not theirs."""
    given = keyword_arg(node, "axes") or (args[2] if len(args) > 2 else None)
    pairs: list[tuple[int, int]]
    if given is None or int_literal(given) is not None:
        k = 2 if given is None else int_literal(given)
        if k is None or not 0 <= k <= min(left, right):
            return (given or node), f"np.tensordot contracts {k} axes, more than its operands have"
        pairs = [(left - k + j, j) for j in range(k)]
    elif isinstance(given, (cst.Tuple, cst.List)) and len(given.elements) == 2:
        sides = []
        for e in given.elements:
            v = e.value
            items = [x.value for x in v.elements] if isinstance(v, (cst.Tuple, cst.List)) else [v]
            sides.append([int_literal(x) for x in items])
        if len(sides[0]) != len(sides[1]) or any(a is None for side in sides for a in side):
            return given, "np.tensordot's axes must be two lists of integer literals of one length"
        pairs = list(zip(sides[0], sides[1]))  # type: ignore[arg-type]
        if any(not -left <= a < left or not -right <= c < right for a, c in pairs):
            return given, "np.tensordot's axes name an axis its operands do not have"
        pairs = [(a % left, c % right) for a, c in pairs]
    else:
        return given, "np.tensordot's axes must be an integer literal or a pair of lists of them"
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    a_sub = [next(letters) for _ in range(left)]
    b_sub = [next(letters) for _ in range(right)]
    for a, c in pairs:
        b_sub[c] = a_sub[a]
    contracted_a, contracted_b = {a for a, _ in pairs}, {c for _, c in pairs}
    if len(contracted_a) < len(pairs) or len(contracted_b) < len(pairs):
        return given or node, "np.tensordot's axes name an axis twice"
    out = [c for k, c in enumerate(a_sub) if k not in contracted_a] + \
        [c for k, c in enumerate(b_sub) if k not in contracted_b]
    return f"{''.join(a_sub)},{''.join(b_sub)}->{''.join(out)}"


def einsum(lw: ExprLowerer, node: cst.Call, args: list, b: Builder, env: Env) -> Value:
    spec = args[0]
    if not isinstance(spec, cst.SimpleString):
        raise lw.fail(spec, "the subscripts of np.einsum must be a string literal",
                      hint='write np.einsum("ij,j->i", A, x)')
    subs = "".join(str(ast.literal_eval(spec.value)).split())
    if "." in subs:
        raise lw.fail(spec, "np.einsum with an ellipsis ('...') is not supported",
                      hint="name every axis with a letter")
    if "->" not in subs:  # implicit output: the letters used once, in alphabetical order
        letters = subs.replace(",", "")
        subs += "->" + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    terms, out = array_ops.einsum_terms(subs)
    for t in terms:
        repeated = {c for c in t if t.count(c) > 1}
        if repeated and not (len(t) == 2 and t[0] == t[1]):
            raise lw.fail(spec, f"np.einsum term '{t}' repeats a letter; only 'ii' (a matrix's diagonal) can",
                          hint="take the diagonal first with np.diag, or loop over the elements")
    operands = [lw.array(a, b, env) for a in args[1:]]
    why = array_ops.einsum_problem(subs, [v.type.rank for v in operands])  # type: ignore[attr-defined]
    if why is not None:
        raise lw.fail(node, f"unsupported np.einsum: {why}", hint="check the subscripts against the operands' ranks")
    return arr_op(lw, b, node, "einsum", operands, {"subs": subs})


def _literal_axis(lw: ExprLowerer, node: cst.Call, rank: int, default: int) -> int:
    axis_node = keyword_arg(node, "axis")
    if axis_node is None:
        return default
    k = int_literal(axis_node)
    if k is None:
        raise lw.fail(axis_node, "axis= must be an integer literal", hint="write axis=0 or axis=1")
    axis = k + rank if k < 0 else k
    if not 0 <= axis < rank:
        raise lw.fail(axis_node, f"axis {k} is out of range for a {rank}-D result")
    return axis


def stacked(lw: ExprLowerer, op: str, node: cst.Call, args: list, b: Builder, env: Env) -> Value:
    seq = args[0]
    name = dotted_source(node.func) or f"np.{op}"
    named_list = isinstance(seq, cst.Name) and py_lists.is_list(lw, seq)
    if op in STACKS_OF_ITEMS and (isinstance(seq, cst.ListComp) or named_list):
        return _stacked_items(lw, op, name, node, py_lists.as_array(lw, seq, b, env), b)
    if op in STACKS_OF_ITEMS and not isinstance(seq, (cst.List, cst.Tuple)):
        items = lw.value(seq, b, env)
        if items.type.is_array:  # an array: its rows, as NumPy iterates it
            return _stacked_items(lw, op, name, node, items, b)
    if not isinstance(seq, (cst.List, cst.Tuple)) or any(isinstance(e, cst.StarredElement) for e in seq.elements):
        raise lw.fail(seq, f"{name} takes a list or tuple of arrays written in the call",
                      hint=f"write {name}([x, y])")
    if not seq.elements:
        raise lw.fail(seq, f"{name} needs at least one array")
    parts = [_part(lw, name, e.value, b, env) for e in seq.elements]
    ranks = [v.type.rank for v in parts]  # type: ignore[attr-defined]
    if op in ("vstack", "column_stack"):
        # NumPy makes a vector a row (vstack) or a column (column_stack) of a matrix.
        parts = [_as_matrix(lw, b, node, v, op == "vstack") if v.type.rank == 1 else v  # type: ignore[attr-defined]
                 for v in parts]
        ranks = [v.type.rank for v in parts]  # type: ignore[attr-defined]
        if set(ranks) != {2}:
            raise lw.fail(seq, f"{name} takes vectors and matrices")
        return arr_op(lw, b, node, "concat", parts, {"axis": 0 if op == "vstack" else 1})
    if len(set(ranks)) != 1:
        raise lw.fail(seq, f"{name} takes arrays of one rank; these have ranks {', '.join(map(str, ranks))}")
    if op == "hstack":
        return arr_op(lw, b, node, "concat", parts, {"axis": 0 if ranks[0] == 1 else 1})
    if op == "stack":
        return arr_op(lw, b, node, "stack", parts, {"axis": _literal_axis(lw, node, ranks[0] + 1, 0)})
    axis_node = keyword_arg(node, "axis")
    if isinstance(axis_node, cst.Name) and axis_node.value == "None":
        raise lw.fail(axis_node, "np.concatenate with axis=None (flattening) is not supported",
                      hint="reshape the arrays to vectors first")
    return arr_op(lw, b, node, "concat", parts, {"axis": _literal_axis(lw, node, ranks[0], 0)})


def _part(lw: ExprLowerer, name: str, node: cst.BaseExpression, b: Builder, env: Env) -> Value:
    """One of the arrays stacked: an array, or a list of numbers written in the call (``[0.0]`` in
    ``np.concatenate(([0.0], x))``), which NumPy takes for the array of its items: a list (or a
    tuple) of one number the array ``np.full(1, v)`` (``np.zeros(1)`` for 0.0), a longer list as
    ``np.array`` makes it."""
    sequence = isinstance(node, (cst.List, cst.Tuple))
    if sequence and len(node.elements) == 1 and isinstance(node.elements[0], cst.Element) \
            and not isinstance(node.elements[0].value, (cst.List, cst.Tuple, cst.ListComp)):  # type: ignore
        item = node.elements[0].value  # type: ignore[attr-defined]
        v = lw.value(item, b, env)
        if not v.type.is_array:
            return arr_op(lw, b, node, "full", [lw.const(b, node, 1, I64), lw.to_number(b, item, v)])
    if isinstance(node, cst.List):
        return py_lists.as_array(lw, node, b, env)  # type: ignore[arg-type]
    if sequence:
        raise lw.fail(node, f"{name} takes a tuple written in its list of parts with one number only, (a,)",
                      hint="write the numbers as a list: [a, b]")
    return lw.array(node, b, env)


def _stacked_items(lw: ExprLowerer, op: str, name: str, node: cst.Call, items: Value, b: Builder) -> Value:
    """``np.vstack([x ** k for k in range(d)])``, ``np.stack(rows)`` of a list ``rows`` & co.: the
    items made into one array along a new first axis (``py_lists.as_array``: a comprehension's
    buffer, ``py_comprehension.fill``; a list's; an array's rows) is ``np.stack`` of them; the
    others are it reshaped or transposed, as NumPy stacks them."""
    rank = items.type.rank - 1  # type: ignore[attr-defined]  # the items'
    seq = node.args[0].value
    if op == "concatenate":  # along their first axis: of vectors one long vector, of matrices their rows
        if _literal_axis(lw, node, max(rank, 1), 0) != 0 or rank not in (1, 2):
            raise lw.fail(seq, f"{name} of a list's or an array's items is supported along their first axis, of "
                          "vectors or matrices", hint=f"write {name}([a, b]) of named arrays")
        op = "hstack" if rank == 1 else "vstack"
    lw.at(b, node)
    n = b.op1("dim", [items], I64, axis=0)
    if rank == 0:  # numbers: NumPy takes each for an array of one element
        if op in ("vstack", "column_stack"):
            one = lw.const(b, node, 1, I64)
            return arr_op(lw, b, node, "reshape", [items, n, one] if op == "vstack" else [items, one, n])
        return items
    if op == "hstack" and rank == 1:
        return arr_op(lw, b, node, "reshape", [items, build.mul(b, n, b.op1("dim", [items], I64, axis=1))])
    axis = 0 if op == "vstack" else 1 if op == "column_stack" else \
        _literal_axis(lw, node, rank + 1, 0) if op == "stack" else -1
    if axis == 0 and (op == "stack" or rank == 1):
        return items
    if axis == 1 and rank == 1:
        return arr_op(lw, b, node, "transpose", [items])
    if op == "vstack" and rank == 2:  # matrices one under the other
        rows = build.mul(b, n, b.op1("dim", [items], I64, axis=1))
        return arr_op(lw, b, node, "reshape", [items, rows, b.op1("dim", [items], I64, axis=2)])
    raise lw.fail(seq, f"{name} of a list comprehension of {rank}-D arrays is supported along a new first axis "
                  "only", hint=f"stack them with np.stack([...], axis=0) or write {name}([a, b]) of named arrays")


def _as_matrix(lw: ExprLowerer, b: Builder, node: cst.CSTNode, v: Value, row: bool) -> Value:
    one = lw.const(b, node, 1, I64)
    n = lw.at(b, node).op1("dim", [v], I64, axis=0)
    return arr_op(lw, b, node, "reshape", [v, one, n] if row else [v, n, one])


def _evidently_square(lw: ExprLowerer, x: Value) -> bool:
    """Whether the matrix ``x`` evidently has as many rows as columns: one extent along both axes
    (``A @ A.T``, ``np.eye(n)``), or parameters' extents its annotation names alike (``"f64[n, n]"``)."""
    rows, cols = py_arrays.extent_keys(x, 0), py_arrays.extent_keys(x, 1)
    if rows is None or cols is None:
        return False
    keys = rows | cols
    if len(keys) == 1 or py_extents.same_sum(lw, keys):
        return True
    shapes = lw.ctx.types.shapes

    def symbol(key: object) -> Optional[str]:
        if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], Value)):
            return None
        shape = shapes.get(key[0].name_hint) or ()
        if key[0].defining_op is not None or len(shape) != key[0].type.rank:  # type: ignore[attr-defined]
            return None  # (a parameter as it enters)
        name = shape[key[1]].strip()
        return name if name.isidentifier() else None
    named = {symbol(key) for key in keys}
    return len(named) == 1 and None not in named


def _mode(lw: ExprLowerer, node: cst.Call, args: list) -> str:
    mode_node: Optional[cst.BaseExpression] = args[2] if len(args) > 2 else keyword_arg(node, "mode")
    if mode_node is None:
        return "full"
    mode = ast.literal_eval(mode_node.value) if isinstance(mode_node, cst.SimpleString) else None
    if mode not in array_ops.CONVOLVE_MODES:
        raise lw.fail(mode_node, "mode= of np.convolve must be the literal 'full', 'valid' or 'same'")
    return str(mode)

