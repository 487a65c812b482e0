"""The least rank each unannotated parameter of a Python function must have, from how it is used.

Type inference (``py_types``) takes an unannotated NumPy parameter's rank from direct evidence:
the number of indices of ``x[i]``, ``A.shape[1]``, the operand of ``@``. Much NumPy code shows
the rank only through what is done with a value derived from the parameter:

* ``d = X[i] - X[j]; np.dot(d, d)``: ``d`` is an array, so ``X[i]`` is, so ``X`` has two axes;
* ``np.sum(A, axis=1)`` and ``A.mean(axis=1)``: ``A`` has an axis 1;
* ``for e in E: np.sum(e ** 2)``: the items of ``E`` are arrays;
* ``np.sum(np.sum(v * v, axis=1))``: ``v * v`` has two axes, and ``v`` is its only operand that
  can be an array.

This module propagates such *needs* ("this expression has at least r axes") backwards, to a
fixpoint, through the expressions that transmit them exactly: an index takes one axis off
(``X[i]`` needs ``X`` at ``r + 1``), an elementwise operation needs it of its one operand that can
be an array (not of ``x - mu`` where either may be), a reduction over an axis takes that axis
off, and a local needs it of every value assigned to it (a variable has one type for the whole
function, ``py_types``). A need reaching a parameter is a least rank. Only needs that the code
forces are collected (an index, an axis, an operand of ``@``, the argument of a reduction that
s2sad differentiates only of an array): a use any rank would satisfy adds nothing.

A least rank is not the rank: ``X[i] - X[j]`` is a vector for a matrix ``X`` and a matrix for a
3-D one. Inference takes the least rank the uses allow and, unless the code proves it exactly
(``py_types.assumptions``), the gradient checks it at entry (``emit_py.rank_checks``).
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from ..ssa.ops import MATH_FNS
from ..ssa.types import Type
from . import py_intrinsics as lib
from .py_flow import all_names, children, is_new_axis, is_shape_subscript, is_whole_slice, subscript_chain
from .py_products import dot_by_notation, product_operands

# The most axes a NumPy array has (NumPy 2; NumPy 1: 32): a literal axis past them is no evidence.
MAX_AXES = 64

# NumPy reductions whose operand s2sad takes only as an array; with ``axis=k`` the operand has an
# axis k and the result one axis less.
_REDUCTIONS = ("sum", "mean", "max_reduce", "min_reduce", "prod", "var", "std")
# Reductions whose operand is the first argument, and their method spellings (``A.sum(axis=1)``).
_REDUCTION_METHODS = ("sum", "mean", "max", "min", "prod", "var", "std")
_ELEMENTWISE_BINARY = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
# Library calls that are elementwise on all their arguments, besides the math functions.
# (SciPy's special functions of several operands among them: ``betaln(k + a, n - k + b)``.)
_ELEMENTWISE_CALLS = ("add", "sub", "mul", "div", "power", "maximum", "minimum", "where", *lib.ELEMENTWISE_SPECIAL)


class RankUses:
    """The least ranks of one function's parameters (see the module docstring).

    ``assigns``: the values assigned to each local, as ``py_types`` records them (an expression,
    a ``Type``, or an object with ``seq``: an item of a sequence a loop runs over);
    ``is_number``: whether an expression is known to be a number (a literal, an integer, a
    parameter annotated or defaulted as one); ``canonical``: a callee's canonical name."""

    def __init__(self, body: cst.CSTNode, params: list[str], assigns: dict[str, list[object]],
                 is_number: Callable[[cst.BaseExpression], bool],
                 canonical: Callable[[cst.BaseExpression], Optional[str]], known: Optional[dict[str, int]] = None):
        self.body = body
        # The ranks the code proves of parameters (annotations, ``n, d = X.shape``): what an
        # element met by such an array is (``_row_beside_array``).
        self.known = dict(known or {})
        # Element accesses met elementwise by another operand: (the element, the other).
        self._beside: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        self.order = list(params)
        self.params = set(params)
        self.assigns = assigns
        self.is_number = is_number
        self.canonical = canonical
        self.least: dict[str, int] = {}
        # The matrix products (by id) whose result must be an array (``py_products``).
        self.array_products: set[int] = set()
        # Those whose result must be a number (``float(w @ h)``): products of two vectors.
        self.number_products: set[int] = set()
        # Elementwise results that must have some axes, where several operands could supply them
        # (``x - mu``): each operand, and the rank (see ``_resolve_ambiguous``).
        self._ambiguous: list[tuple[list[cst.BaseExpression], int]] = []
        self._seen: set[tuple[int, int]] = set()
        self._through: set[str] = set()  # names whose assigned values are being followed (need)
        # The names comprehensions bind to the items of a sequence (``[... for c in C]``): name ->
        # the sequence (names that are locals of the function too are left out).
        self.comprehension_items: dict[str, cst.BaseExpression] = {}
        self._comprehension_targets(body)

    def _comprehension_targets(self, node: cst.CSTNode) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not self.body:
            return
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            clause: Optional[cst.CompFor] = node.for_in
            while clause is not None:
                if isinstance(clause.target, cst.Name) and clause.target.value not in self.assigns \
                        and clause.target.value not in self.params:
                    self.comprehension_items[clause.target.value] = clause.iter
                clause = clause.inner_for_in
        for c in children(node):
            self._comprehension_targets(c)

    def run(self) -> dict[str, int]:
        """Parameter name -> the least rank its uses need (only parameters some use needs)."""
        self._visit(self.body)
        self._locals_take_their_values_ranks()
        self._rows_beside_arrays()
        self._resolve_ambiguous()
        return self.least

    # -- what a local's values show ---------------------------------------------------------
    def _locals_take_their_values_ranks(self) -> None:
        """A local has one type for the whole function: where one value assigned to it evidently
        has some axes (``vel = vel + dt * a`` with ``a = F / m[:, None]``, two), every value
        assigned to it needs them (``vel = vel0.copy()``: ``vel0`` has two axes)."""
        known: dict[str, int] = {}
        # One node per local, kept: ``need`` remembers what it has seen by node identity.
        nodes = {name: cst.Name(name) for name in self.assigns}
        for _ in range(len(self.assigns) + 1):
            changed = False
            for name, values in self.assigns.items():
                rank = max((self._least_rank(v, known) for v in values if isinstance(v, cst.BaseExpression)),
                           default=0)
                if rank > known.get(name, 0):
                    known[name] = rank
                    changed = True
                    self.need(nodes[name], rank)
            if not changed:
                return

    def _least_rank(self, expr: cst.BaseExpression, known: dict[str, int]) -> int:
        """A lower bound on the axes of ``expr``'s value, from what evidently makes axes: ``None``
        in an index, a slice, a parameter's least rank, a local's (``known``), carried through
        elementwise arithmetic and functions, copies and transposes."""
        if self.is_number(expr):
            return 0
        if isinstance(expr, cst.Name):
            return max(self.least.get(expr.value, 0) if expr.value in self.params else 0, known.get(expr.value, 0))
        if isinstance(expr, cst.Subscript) and not is_shape_subscript(expr):
            kinds = [el.slice for el in expr.slice]
            if any(isinstance(k, cst.Index) and k.value.__class__ is cst.Ellipsis for k in kinds):
                return 0
            new = sum(1 for k in kinds if isinstance(k, cst.Index) and _is_none(k.value))
            ranges = sum(1 for k in kinds if isinstance(k, cst.Slice))
            taken = len(kinds) - new - ranges
            return new + max(ranges, self._least_rank(expr.value, known) - taken)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self._least_rank(expr.expression, known)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ELEMENTWISE_BINARY + (cst.Power,)):
            return max(self._least_rank(expr.left, known), self._least_rank(expr.right, known))
        if isinstance(expr, cst.Attribute) and expr.attr.value == "T":
            return self._least_rank(expr.value, known)
        if isinstance(expr, cst.IfExp):
            return min(self._least_rank(expr.body, known), self._least_rank(expr.orelse, known))
        if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
            return 0
        args = [a.value for a in expr.args if a.keyword is None]
        func = expr.func
        if isinstance(func, cst.Attribute) and self.canonical(func) is None:
            if func.attr.value == "copy" and not args or func.attr.value == "astype" and len(args) == 1:
                return self._least_rank(func.value, known)  # (x.astype(float): x's axes)
            return 0
        canonical = self.canonical(func) or ""
        intr = lib.lookup(canonical)
        if intr is None or not args or not (canonical.startswith("numpy.") or canonical.startswith("scipy.")):
            return 0
        if intr.op in MATH_FNS and len(args) == 1 or intr.op in ("array", "asarray") and len(args) == 1:
            return self._least_rank(args[0], known)
        if intr.op in _ELEMENTWISE_CALLS:
            return max(self._least_rank(a, known) for a in args)
        if intr.op == "outer":
            return 2
        return 0

    # -- where a use needs an array -------------------------------------------------------
    def _visit(self, node: cst.CSTNode) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not self.body:
            return
        if is_shape_subscript(node):
            k = _int_literal(node.slice[0].slice.value) if isinstance(node.slice[0].slice, cst.Index) else None
            # A.shape[1]; an axis past the most NumPy arrays have is refused where it is read
            self.need(node.value.value, (k + 1) if k is not None and 0 <= k < MAX_AXES else 1)
        elif isinstance(node, cst.Subscript):
            for el in node.slice:  # w[valid], w[x > 0]: a mask is an array (a bool is no index)
                index = el.slice.value if isinstance(el.slice, cst.Index) else None
                if index is not None and (_is_mask(index) or isinstance(index, cst.Name) and any(
                        _is_mask(a) for a in self.assigns.get(index.value, []))):
                    self.need(index, 1)
            axes = self._axes_taken(node)
            if axes is not None:
                self.need(node.value, axes)
            else:  # logp[np.arange(n), labels]: index arrays too take an axis each, at least;
                # sw[:, None]: each index but a new axis (None) takes one (an axis sw must have);
                # y[..., 1:]: so does each but the ellipsis, which may stand for no axis
                kinds = [el.slice for el in node.slice]
                self.need(node.value, sum(1 for k in kinds if not (isinstance(k, cst.Index) and (
                    _is_none(k.value) or isinstance(k.value, cst.Ellipsis)))))
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            self.need(node.left, 1)
            self.need(node.right, 1)
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ELEMENTWISE_BINARY):
            self._centring([node.left, node.right])
            self._row_beside_product(node.left, node.right)
            self._row_beside_product(node.right, node.left)
            self._beside += [(node.left, node.right), (node.right, node.left)]
        elif isinstance(node, cst.Call):
            self._call(node)
        elif isinstance(node, (cst.For, cst.CompFor)):
            for seq in self._iterated(node.iter):  # for a, b in zip(row, v): row has items
                self.need(seq, 1)
        for c in children(node):
            self._visit(c)

    def _iterated(self, it: cst.BaseExpression) -> list[cst.BaseExpression]:
        """The names a loop takes the items of: ``x``, ``zip(x, y)``, ``enumerate(x)``."""
        if isinstance(it, cst.Name):
            return [it]
        if isinstance(it, cst.Call) and self.canonical(it.func) in ("builtins.zip", "builtins.enumerate"):
            return [a.value for a in it.args if a.keyword is None and not a.star and isinstance(a.value, cst.Name)]
        return []

    def _call(self, node: cst.Call) -> None:
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if any(a.star for a in node.args):
            return
        if self.canonical(node.func) in ("builtins.float", "builtins.int") and len(args) == 1 \
                and product_operands(args[0], self.canonical) is not None:
            self.number_products.add(id(args[0]))  # float(W2 @ h): a number, so two vectors
        axis = _axis(node)
        if axis is None and _batched(node):
            axis = 1  # x.mean(axis=-1, keepdims=True): the last axis of a batch of rows, guessed 2-D
        func = node.func
        if isinstance(func, cst.Attribute) and self.canonical(func) is None:
            # A method of a value: A.sum(axis=1), A.mean(), d.dot(w)
            if func.attr.value in _REDUCTION_METHODS or func.attr.value == "dot":
                self.need(func.value, axis + 1 if axis is not None else 1)
            return
        intr = lib.lookup(self.canonical(func))
        if intr is None or not args:
            return
        if intr.op in _REDUCTIONS or (intr.op == "norm" and axis is not None):  # norm(d, axis=1): rows
            self.need(args[0], axis + 1 if axis is not None else 1)
        elif intr.op == "einsum" and isinstance(args[0], cst.SimpleString):  # "ij,jk->ik": a letter per axis
            terms = args[0].evaluated_value.split("->")[0].split(",")
            for term, operand in zip(terms, args[1:]):
                if "." not in term:
                    self.need(operand, len(term.strip()))
        elif intr.op in ("trace", "det", "inv", "solve", "slogdet", "cholesky", "tril", "triu", "diagonal", "eigh",
                         "eigvalsh"):
            # a matrix
            self.need(args[0], 2)
        elif intr.op in ("matmul", "outer", "cross", "kron", "len") or intr.op in lib.LINALG_OPS:
            for a in args[:2]:
                self.need(a, 1)
        elif intr.op == "ravel":  # flattened to a vector (np.meshgrid's inputs): an array, as a rule
            self.need(args[0], 1)
        elif intr.op in ("cumsum", "cumprod", "sort", "argsort", "argmax", "argmin"):
            # along an axis of an array (np.cumsum(r @ w): the product a vector, r a matrix)
            self.need(args[0], axis + 1 if axis is not None else 1)

    # -- how a need travels -----------------------------------------------------------------
    def need(self, expr: cst.BaseExpression, rank: int) -> None:
        """``expr`` must have at least ``rank`` axes."""
        if rank <= 0 or (id(expr), rank) in self._seen:
            return
        self._seen.add((id(expr), rank))
        if product_operands(expr, self.canonical) is not None:
            self.array_products.add(id(expr))
        if isinstance(expr, cst.Name):
            if expr.value in self._through:
                # x = x[idx]: the name's own earlier value, reached through what is assigned to it,
                # tells nothing sure (idx may be a number or an array): followed once, not forever
                return
            if expr.value in self.params:
                self.least[expr.value] = max(self.least.get(expr.value, 0), rank)
                if expr.value not in self.assigns:
                    return
            if expr.value in self.comprehension_items:  # [... for c in C]: C's items have the rank
                self.need(self.comprehension_items[expr.value], rank + 1)
            self._through.add(expr.value)
            try:
                for value in self.assigns.get(expr.value, []):
                    seq = getattr(value, "seq", None)
                    if isinstance(seq, cst.BaseExpression):  # for e in E: E's items have the rank
                        self.need(seq, rank + 1)
                    elif isinstance(value, cst.BaseExpression):
                        self.need(value, rank)
            finally:
                self._through.discard(expr.value)
        elif isinstance(expr, cst.Subscript) and not is_shape_subscript(expr):
            axes = self._axes_taken(expr, plain=True)
            if axes is not None:
                self.need(expr.value, rank + axes)
            elif (picked := self._index_array_rank(expr)) is not None:  # X[idx]: idx's axes, then X's others
                self.need(expr.value, rank - picked + 1)
        elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus, cst.BitInvert)):
            self.need(expr.expression, rank)
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            # (a > 0) & ~(a > 1): masks, each of them an array (the rank a guess checked at entry)
            self.need(expr.left, rank)
            self.need(expr.right, rank)
        elif isinstance(expr, cst.Attribute) and expr.attr.value == "T":  # A.T: A's axes, reversed
            self.need(expr.value, rank)
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.MatrixMultiply):
            if rank >= 2:  # a matrix from a product: of two matrices (a batch aside)
                self.need(expr.left, 2)
                self.need(expr.right, 2)
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Power):
            if self.is_number(expr.right):
                self.need(expr.left, rank)
            else:  # x ** gamma: either may be the array
                self._one_array_operand([expr.left, expr.right], rank)
        elif isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
            self._one_array_operand([expr.left, expr.comparisons[0].comparator], rank)
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ELEMENTWISE_BINARY):
            self._one_array_operand([expr.left, expr.right], rank)
        elif isinstance(expr, cst.Call):
            args = [a.value for a in expr.args if a.keyword is None and not a.star]
            if any(a.keyword is not None or a.star for a in expr.args) and _axis(expr) is None:
                return
            func = expr.func
            if isinstance(func, cst.Attribute) and self.canonical(func) is None:
                if func.attr.value in _REDUCTION_METHODS and _axis(expr) is not None:  # A.mean(axis=0)
                    self.need(func.value, max(rank + _dropped(expr), _axis(expr) + 1))  # type: ignore[operator]
                elif func.attr.value in ("copy", "transpose") and not args or func.attr.value == "astype" \
                        and len(args) == 1:  # B = A.copy(), y = np.array(y0).astype(float): A's axes
                    self.need(func.value, rank)
                return
            intr = lib.lookup(self.canonical(func))
            canonical = self.canonical(func) or ""
            if intr is None:
                return
            if intr.op in _REDUCTIONS and args and _axis(expr) is not None:
                self.need(args[0], max(rank + _dropped(expr), _axis(expr) + 1))  # type: ignore[operator]
            elif intr.op in MATH_FNS and len(args) == 1 and (canonical.startswith("numpy.")
                                                                 or canonical.startswith("scipy.")):
                self.need(args[0], rank)
            elif len(args) == 2 and intr.op in ("add", "sub", "mul", "div", "power", "maximum", "minimum") \
                    and canonical.startswith("numpy."):
                self._one_array_operand(args, rank)
            elif intr.op in lib.ELEMENTWISE_SPECIAL:  # (norm's loc= and scale= by name too)
                operands = [a for a in lib.norm_args(expr) if a is not None] if intr.op in lib.NORM_FUNCTIONS else args
                self._one_array_operand(operands, rank)
            elif intr.op == "where" and len(args) == 3:
                self.need(args[0], rank)  # s2sad takes np.where's condition as an array only
            elif intr.op == "polyval" and len(args) == 2:
                self.need(args[1], rank)  # the polynomial at x has x's axes
            elif intr.op in ("array", "asarray", "transpose") and len(args) == 1:  # np.copy(A), A's axes
                self.need(args[0], rank)
            elif intr.op == "kron" and len(args) == 2:  # (of two arrays of one rank: s2sad's np.kron)
                self.need(args[0], rank)
                self.need(args[1], rank)

    def _one_array_operand(self, operands: list[cst.BaseExpression], rank: int) -> None:
        """An elementwise result of ``rank`` axes: the operand that can be an array has them. With
        several that can (``x - mu``), which one does is unknown, unless they are all items of one
        array (``X[i] - X[j]``, the same need of ``X``)."""
        open_ = [e for e in operands if not self.is_number(e)]
        parts = self._parts_of_one(open_)
        if len(open_) == 1:
            self.need(open_[0], rank)
        elif parts is not None:  # coords[1:] - coords[0]: the part keeping the most axes has the rank
            self.need(parts, rank)
        elif len(open_) > 1 and (_same_rows(open_) or all(self._is_item(e) for e in open_)):
            for e in open_:  # X[i] - X[j]; x - c with x and c items of sequences: alike
                self.need(e, rank)
        elif len(open_) > 1 and any(_adds_axis(e) for e in open_):
            # x[:, None] - mu: the new axis is there to meet another array's, a vector's at least
            for e in open_:
                if isinstance(e, cst.Name) and e.value in self.params:
                    self.need(e, 1)
        elif len(open_) > 1 and sum(map(_holds_new_axis, open_)) == 1:
            self.need(next(e for e in open_ if _holds_new_axis(e)), rank)  # the array comes from there
        elif len(open_) > 1:
            self._ambiguous.append((open_, rank))

    def _parts_of_one(self, exprs: list[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
        """Where ``exprs`` are several parts of one array by integer indices and slices
        (``coords[1:]``, ``coords[0]``; not all alike, which ``_same_rows`` covers), the one that
        takes the fewest axes off, whose axes the elementwise result has; else None."""
        if len(exprs) < 2 or _same_rows(exprs):
            return None
        taken: list[tuple[int, str, cst.BaseExpression]] = []
        for e in exprs:
            part = self._part(e)
            if part is None:
                return None
            taken.append((part[1], part[0], e))
        if len({name for _, name, _ in taken}) != 1:
            return None
        return min(taken, key=lambda t: t[0])[2]

    def _part(self, e: cst.BaseExpression) -> Optional[tuple[str, int]]:
        """(the array, the axes taken off) of ``A``, ``A[i]``, ``A[1:]``, ``A.mean(axis=0)``,
        ``np.sum(A, axis=1)`` (``keepdims``: none), a whole reduction (all); None otherwise."""
        if isinstance(e, cst.Name):
            values = self.assigns.get(e.value, [])
            if e.value not in self.params and len(values) == 1 and isinstance(values[0], cst.Call) \
                    and self._part(values[0]) is not None:  # mu = A.mean(axis=0): a part of A
                return self._part(values[0])
            return e.value, 0
        if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Name):
            axes = self._axes_taken(e, plain=True)
            return (e.value.value, axes) if axes is not None else None
        if not isinstance(e, cst.Call):
            return None
        func, args = e.func, [a.value for a in e.args if a.keyword is None]
        if isinstance(func, cst.Attribute) and self.canonical(func) is None and func.attr.value in _REDUCTION_METHODS:
            base = func.value
        else:
            intr = lib.lookup(self.canonical(func))
            if intr is None or intr.op not in _REDUCTIONS or not args:
                return None
            base = args[0]
        if not isinstance(base, cst.Name):
            return None
        keep = any(a.keyword is not None and a.keyword.value == "keepdims" and isinstance(a.value, cst.Name)
                   and a.value.value == "True" for a in e.args)
        return base.value, 0 if keep else 1 if _axis(e) is not None else 100

    def _row_beside_product(self, item: cst.BaseExpression, other: cst.BaseExpression) -> None:
        """``y - targets[t]`` with ``y = Why @ h`` (a product, an array): an element access met by
        an array in elementwise arithmetic is taken for a row (``targets`` one axis more than its
        indices), as code that indexes a value and then broadcasts it means; a guess the gradient
        checks on entry (a number there would do too: then the check names the annotation)."""
        if isinstance(item, cst.Subscript) and not is_shape_subscript(item) and self._product_valued(other) \
                and not self._dot_product(other):
            axes = self._axes_taken(item, plain=True)
            base = subscript_chain(item)[0]
            if isinstance(base, cst.Name) and base.value in self._computed_from(other, set()):
                # y[t] - np.dot(phi, y[t - p:t]): the product is an array only if y has the axis
                # more; either way is consistent, and the guess is the fewer axes
                return
            if axes:
                self.need(item, 1)

    def _rows_beside_arrays(self) -> None:
        """``X - mus[k]`` with ``X`` evidently a matrix (``n, d = X.shape``): an element access of
        a parameter met elementwise by an array of two axes or more is taken for a row (``mus``
        a matrix, a mean per row), as code that broadcasts a row against a batch means; a guess
        the gradient checks on entry (``x - mus[k]`` with ``x`` a vector keeps a number)."""
        saved = self.least
        self.least = {p: max(self.least.get(p, 0), self.known.get(p, 0)) for p in {*self.least, *self.known}}
        try:
            rows = [item for item, other in self._beside
                    if isinstance(item, cst.Subscript) and not is_shape_subscript(item)
                    and isinstance(item.value, cst.Name) and item.value.value in self.params
                    and item.value.value not in self.known and self._axes_taken(item, plain=True) == 1
                    and self._least_rank(other, {}) >= 2]
        finally:
            self.least = saved
        for item in rows:
            self.need(item, 1)

    def _computed_from(self, e: cst.CSTNode, seen: set[str]) -> set[str]:
        """The names ``e`` reads, and those the locals it reads are assigned from."""
        out: set[str] = set()
        for n in all_names(e):
            out.add(n.value)
            if n.value not in seen and n.value not in self.params:
                seen.add(n.value)
                for value in self.assigns.get(n.value, []):
                    if isinstance(value, cst.CSTNode):
                        out |= self._computed_from(value, seen)
        return out

    def _centring(self, operands: list[cst.BaseExpression]) -> None:
        """``A - A.mean(axis=0)``: an array and its reduction along an axis, met elementwise. The
        guess is that the array has an axis more than the one reduced (a vector is centred with
        ``A.mean()``), which the gradient checks on entry like any guess."""
        open_ = [e for e in operands if not self.is_number(e)]
        parts = self._parts_of_one(open_)
        centred = max((k + 2 for k in map(self._reduced_axis, open_) if k is not None and k >= 0), default=0)
        # (not where every operand is a reduction: np.min(X, axis=0) * np.prod(X, axis=0) are
        # alike, and X was taken for 3-D; probe round 10)
        if parts is not None and centred and self._reduced_axis(parts) is None:
            self.need(parts, centred)

    def _reduced_axis(self, e: cst.BaseExpression) -> Optional[int]:
        """The axis ``e`` (or the local it names) reduces, without ``keepdims``: ``A.mean(axis=0)``,
        ``np.sum(A, axis=1)``; else None."""
        if isinstance(e, cst.Name) and e.value not in self.params:
            values = self.assigns.get(e.value, [])
            e = values[0] if len(values) == 1 and isinstance(values[0], cst.Call) else e
        part = self._part(e) if isinstance(e, cst.Call) else None
        return _axis(e) if part is not None and part[1] == 1 and isinstance(e, cst.Call) else None

    def _indexed_param(self, e: cst.BaseExpression) -> bool:
        """``X[i]``, ``X[i, j]``: a parameter by integer indices."""
        return isinstance(e, cst.Subscript) and isinstance(e.value, cst.Name) and e.value.value in self.params \
            and self._axes_taken(e, plain=True) is not None

    def _is_item(self, e: cst.BaseExpression) -> bool:
        """``e`` is a name bound to the items of a sequence (``for x in X``, ``[... for c in C]``)."""
        if not isinstance(e, cst.Name):
            return False
        values = self.assigns.get(e.value, [])
        return e.value in self.comprehension_items or (
            bool(values) and all(getattr(v, "seq", None) is not None for v in values))

    def _resolve_ambiguous(self) -> None:
        """Elementwise results that must be arrays, where several operands could be the array and
        nothing else says which (``np.mean((pred - target) ** 2)``, ``np.sum(np.log(sigma) +
        ((x - mu) / sigma) ** 2)``). Where every operand is computed elementwise from parameters
        alone and none of those is known to be an array, the one that comes first in the
        parameter list (data first: ``f(x, mu, sigma)``) is taken to be the array, a guess the
        gradient checks at entry; the others stay numbers (checked, or shape-generic where they
        only meet arrays in broadcasting arithmetic: ``target`` above may then be any shape that
        broadcasts, ``adjoint.shape_generic``). Deciding one may leave another (nested) to decide."""
        k = 0
        while k < len(self._ambiguous):
            operands, rank = self._ambiguous[k]
            k += 1
            sources = [self._elementwise_params(e, set()) for e in operands]
            if any(src is None for src in sources):
                # An index, a call: an array may come from there. A matrix product (mu = x @ W;
                # z = mu + eps with z summed along axis 1) gets the axes: x is a batch of rows.
                products = [e for e, src in zip(operands, sources) if src is None and self._product_valued(e)]
                if len(products) == 1 and all(src is not None for e, src in zip(operands, sources)
                                              if e is not products[0]):
                    self.need(products[0], rank)
                    continue
                # C - X[i] summed along axis 1: the parameter itself has the axes, not an item of
                # another (whose array would need one more); the item is one of its rows, X's rows
                # as long as C's (k-means' centres and points)
                plain = [e for e, src in zip(operands, sources) if src is not None]
                items = [e for e, src in zip(operands, sources) if src is None]
                if len(plain) == 1 and all(map(self._indexed_param, items)):
                    self.need(plain[0], rank)
                    for e in items:
                        self.need(e, rank - 1)
                    continue
                # np.sum(np.logaddexp(0, x_logits) - x * x_logits, axis=1), x_logits from products
                # of x: a parameter the operands are elementwise of, and every matrix product they
                # are elementwise of computed from, has the axes (data first, as below); the
                # others follow from it. Only for
                # the axes an axis= asks for (a whole np.sum of a number is a number's sum)
                if rank < 2:
                    continue
                around = set().union(*(self._params_around(e, set()) for e in operands))
                products = [q for e in operands for q in self._products_around(e, set())]
                around = {p for p in around if products and all(p in self._computed_from(q, set()) for q in products)}
                if around and not any(self.least.get(p, 0) >= rank for p in around):
                    self.need(cst.Name(min(around, key=self.order.index)), rank)
                continue
            found = set().union(*sources)  # type: ignore[arg-type]
            if not found or any(self.least.get(p, 0) >= rank for p in found):
                continue  # an array of those axes already: broadcasting gives the result its axes
            first = min(found, key=self.order.index)
            self.need(next(e for e, src in zip(operands, sources) if first in src), rank)  # type: ignore[operator]

    def _products_around(self, expr: cst.BaseExpression, seen: set[str]) -> list[cst.BaseExpression]:
        """The matrix products ``expr`` is computed from through elementwise operations."""
        if product_operands(expr, self.canonical) is not None:
            return [expr]
        if isinstance(expr, cst.Name):
            if expr.value in seen or expr.value in self.params:
                return []
            seen.add(expr.value)
            return [q for value in self.assigns.get(expr.value, []) if isinstance(value, cst.BaseExpression)
                    for q in self._products_around(value, seen)]
        if isinstance(expr, cst.UnaryOperation):
            return self._products_around(expr.expression, seen)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ELEMENTWISE_BINARY + (cst.Power,)):
            return self._products_around(expr.left, seen) + self._products_around(expr.right, seen)
        if isinstance(expr, cst.Call) and all(a.keyword is None and not a.star for a in expr.args):
            canonical = self.canonical(expr.func) or ""
            intr = lib.lookup(canonical)
            if intr is not None and (canonical.startswith("numpy.") or canonical.startswith("scipy.")) \
                    and (intr.op in MATH_FNS or intr.op in _ELEMENTWISE_CALLS):
                return [q for a in expr.args for q in self._products_around(a.value, seen)]
        return []

    def _params_around(self, expr: cst.BaseExpression, seen: set[str]) -> set[str]:
        """The parameters ``expr`` is computed from through elementwise operations, whatever else
        takes part (a product, an index, another call: they add none)."""
        if isinstance(expr, cst.Name):
            out = {expr.value} if expr.value in self.params else set()
            if expr.value not in seen:
                seen.add(expr.value)
                for value in self.assigns.get(expr.value, []):
                    if isinstance(value, cst.BaseExpression):
                        out |= self._params_around(value, seen)
            return out
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self._params_around(expr.expression, seen)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ELEMENTWISE_BINARY + (cst.Power,)):
            return self._params_around(expr.left, seen) | self._params_around(expr.right, seen)
        if isinstance(expr, cst.Call) and all(a.keyword is None and not a.star for a in expr.args):
            canonical = self.canonical(expr.func) or ""
            intr = lib.lookup(canonical)
            if intr is not None and (canonical.startswith("numpy.") or canonical.startswith("scipy.")) \
                    and (intr.op in MATH_FNS or intr.op in _ELEMENTWISE_CALLS):
                return set().union(*(self._params_around(a.value, seen) for a in expr.args))
        return set()

    def _product_valued(self, e: cst.BaseExpression) -> bool:
        """``x @ W``, or a local assigned only that."""
        return product_operands(self._assigned_value(e), self.canonical) is not None

    def _dot_product(self, e: cst.BaseExpression) -> bool:
        """A product that reads as a dot product (``y[i] - np.dot(x[:i], z[:i])``, a forward
        substitution's): a number, beside which an element is an element (probe p60: ``y`` was
        taken for a matrix, and the store of a row into ``z[i]`` refused)."""
        operands = product_operands(self._assigned_value(e), self.canonical)
        return operands is not None and dot_by_notation(*operands)

    def _assigned_value(self, e: cst.BaseExpression) -> cst.BaseExpression:
        """The expression a local assigned once holds (``e`` itself otherwise)."""
        if isinstance(e, cst.Name) and e.value not in self.params:
            values = self.assigns.get(e.value, [])
            if len(values) == 1 and isinstance(values[0], cst.BaseExpression):
                return values[0]
        return e

    def _elementwise_params(self, expr: cst.BaseExpression, seen: set[str]) -> Optional[set[str]]:
        """The parameters ``expr`` is computed from through elementwise operations (numbers,
        ``+ - * / **``, negation, NumPy's and SciPy's elementwise functions, locals assigned such
        values); None where anything else takes part."""
        if self.is_number(expr):
            return set()
        if isinstance(expr, cst.Name):
            out = {expr.value} if expr.value in self.params else set()
            if expr.value in seen:
                return out
            seen.add(expr.value)
            for value in self.assigns.get(expr.value, []):
                if not isinstance(value, cst.BaseExpression):
                    return None  # an item of a sequence, an augmented assignment, a typed value
                more = self._elementwise_params(value, seen)
                if more is None:
                    return None
                out |= more
            return out if out or expr.value in self.assigns or expr.value in self.params else None
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self._elementwise_params(expr.expression, seen)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ELEMENTWISE_BINARY + (cst.Power,)) \
                or isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
            parts = [expr.left, expr.right] if isinstance(expr, cst.BinaryOperation) \
                else [expr.left, expr.comparisons[0].comparator]
            found = [self._elementwise_params(e, seen) for e in parts]
            return None if None in found else found[0] | found[1]  # type: ignore[operator]
        if isinstance(expr, cst.Call) and all(a.keyword is None and not a.star for a in expr.args):
            canonical = self.canonical(expr.func) or ""
            intr = lib.lookup(canonical)
            if intr is not None and intr.op == "polyval" and len(expr.args) == 2:
                return self._elementwise_params(expr.args[1].value, seen)  # (of x: c's values are the coefficients)
            if intr is None or not (canonical.startswith("numpy.") or canonical.startswith("scipy.")) \
                    or (intr.op not in MATH_FNS and intr.op not in _ELEMENTWISE_CALLS):
                return None
            out: set[str] = set()
            for a in expr.args:
                more = self._elementwise_params(a.value, seen)
                if more is None:
                    return None
                out |= more
            return out
        return None

    def _axes_taken(self, node: cst.Subscript, plain: bool = False) -> Optional[int]:
        """How many axes ``a[...]`` needs of ``a``: one per index and per slice. With ``plain``,
        how many it takes off (integer indices only, each one axis; slices keep theirs). None
        where an index may be an array (it adds axes) or is ``...``/``None``."""
        count = 0
        for el in node.slice:
            s = el.slice
            if isinstance(s, cst.Slice):
                count += 0 if plain else 1
                continue
            values = [e.value for e in s.value.elements] if isinstance(s.value, cst.Tuple) else [s.value]
            for v in values:
                if not self._is_int_index(v):
                    return None
                count += 1
        return count

    def _index_array_rank(self, node: cst.Subscript) -> Optional[int]:
        """``X[idx]`` or ``X[idx, :]`` of a local ``idx`` assigned only integer arrays: their rank."""
        first, *rest = [el.slice for el in node.slice]
        if not (isinstance(first, cst.Index) and isinstance(first.value, cst.Name)) or not all(
                is_whole_slice(s) for s in rest):
            return None
        values = self.assigns.get(first.value.value, [])
        ranks = {v.rank for v in values if isinstance(v, Type) and v.is_array and v.elem.is_int}  # type: ignore
        return ranks.pop() if len(ranks) == 1 and len(values) == 1 else None

    def _is_int_index(self, v: cst.BaseExpression) -> bool:
        if isinstance(v, cst.Integer):
            return True
        if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus):
            return self._is_int_index(v.expression)
        if isinstance(v, cst.BinaryOperation) and isinstance(v.operator, (cst.Add, cst.Subtract, cst.Multiply,
                                                                           cst.FloorDivide, cst.Modulo)):
            return self._is_int_index(v.left) and self._is_int_index(v.right)
        if isinstance(v, cst.Name) and any(isinstance(a, Type) and a.is_array for a in self.assigns.get(v.value, [])):
            return False  # i, j = np.triu_indices(n): an array of indices (X[i]: rows)
        if isinstance(v, cst.Name) and any(_is_mask(a) for a in self.assigns.get(v.value, [])):
            return False  # valid = target > 0; w[valid]: a mask, which takes as many axes as it has
        if isinstance(v, cst.Name) and any(isinstance(a, cst.Call) and self.canonical(a.func) in _INDEX_ARRAYS
                                           for a in self.assigns.get(v.value, [])):
            return False  # order = np.argsort(x); w[order]: integers, but an array of them
        return isinstance(v, cst.Name) and self.is_number(v) and v.value not in self.params \
            or isinstance(v, cst.Name) and _only_ints(self.assigns.get(v.value, []))


def _is_mask(value: object) -> bool:
    """Whether a value assigned to a local is a comparison or a logical combination of them
    (``x > 0``, ``(a > 0) & (b < 1)``, ``~m``): as an index, a mask (a number's would be a
    bool, which NumPy reads as a new axis, not as an integer index)."""
    if isinstance(value, cst.Comparison):
        return True
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _is_mask(value.left) or _is_mask(value.right)
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.BitInvert):
        return _is_mask(value.expression)
    return False


# The NumPy functions that make arrays of positions (an index of one is an index array).
_INDEX_ARRAYS = ("numpy.argsort", "numpy.arange", "numpy.flatnonzero")


def _only_ints(values: list[object]) -> bool:
    """A local only ever assigned integers (a loop counter, ``n = X.shape[0]``)."""
    return bool(values) and all(isinstance(v, Type) and v.is_int for v in values)


def _same_rows(exprs: list[cst.BaseExpression]) -> bool:
    """``X[i]``, ``X[j]``: items of one array by the same number of integer indices (or ``v``
    and ``v`` itself)."""
    if all(isinstance(e, cst.Name) for e in exprs):
        return len({e.value for e in exprs}) == 1  # type: ignore[attr-defined]
    keys = set()
    for e in exprs:
        if not (isinstance(e, cst.Subscript) and isinstance(e.value, cst.Name)
                and all(isinstance(el.slice, cst.Index) and not isinstance(el.slice.value, cst.Tuple)
                        for el in e.slice)):
            return False
        keys.add((e.value.value, len(e.slice)))
    return len(keys) == 1


def _adds_axis(e: cst.BaseExpression) -> bool:
    """``x[:, None]``, ``x[None, :]``, ``x[..., np.newaxis]``: an index that adds an axis."""
    return isinstance(e, cst.Subscript) and any(isinstance(el.slice, cst.Index) and is_new_axis(el.slice.value)
                                                for el in e.slice)


def _holds_new_axis(e: cst.CSTNode) -> bool:
    """``e`` has an index that adds an axis somewhere in it (``(x[:, None] - mu) / s``)."""
    return (isinstance(e, cst.BaseExpression) and _adds_axis(e)) or any(_holds_new_axis(c) for c in children(e))


def _axis(call: cst.Call) -> Optional[int]:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "axis":
            k = _int_literal(a.value)
            return k if k is not None and k >= 0 else None
    return None


def _dropped(call: cst.Call) -> int:
    """The axes a reduction along an axis takes off: one, none with ``keepdims=True``."""
    return 0 if any(a.keyword is not None and a.keyword.value == "keepdims" and isinstance(a.value, cst.Name)
                    and a.value.value == "True" for a in call.args) else 1


def _batched(call: cst.Call) -> bool:
    """``axis=-1`` with ``keepdims=True``: a reduction over the last axis kept to broadcast back,
    which code writes for a batch of rows (layer norm, softmax); on one row, ``x.mean()`` would do.
    A guess of two axes, which the gradient checks on entry."""
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    axis, keep = keywords.get("axis"), keywords.get("keepdims")
    return (isinstance(axis, cst.UnaryOperation) and isinstance(axis.operator, cst.Minus)
            and isinstance(axis.expression, cst.Integer) and axis.expression.value == "1"
            and isinstance(keep, cst.Name) and keep.value == "True")


def _int_literal(node: cst.BaseExpression) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    return None


def _is_none(node: cst.BaseExpression) -> bool:
    """``None`` or ``np.newaxis`` in an index."""
    return (isinstance(node, cst.Name) and node.value == "None") or (
        isinstance(node, cst.Attribute) and node.attr.value == "newaxis")
