"""The ranks the operands of a matrix product are taken to have when nothing in the code shows them.

``a @ b``, ``np.dot(a, b)``, ``np.matmul(a, b)`` and ``a.dot(b)`` are a matrix-vector, a
vector-matrix, a matrix-matrix product or a dot product according to the ranks of their operands,
and NumPy code rarely says which: ``w @ cov @ w``, ``np.dot(x, W)``, ``np.dot(u, v)``. The
adjoint of each form is different, so the rank of an unannotated parameter used only there is
a guess, checked at the gradient's entry (``py_types.assumptions``, ``emit_py.rank_checks``);
this module makes the guess follow how such code is written:

* a chain ``a @ B @ c`` (a product whose left operand is itself a product) is a bilinear form:
  ``a`` and ``c`` vectors, ``B`` a matrix, and so is ``a.T @ B @ c`` (the formula's transpose of a
  vector, which NumPy leaves as it is); ``w.T @ w`` of a lower-case ``w`` is its squared norm;
* mathematical notation names matrices with a capital letter (``A``, ``W1``, ``Sigma``) and
  vectors in lower case: a capitalized operand is a matrix, and a lower-case left operand of a
  capitalized one a vector (``np.dot(x, W)``, ``x @ A``);
* two lower-case names are a dot product (``np.dot(u, v)``, ``w @ w``, ``np.dot(y, alpha)`` of a
  local ``alpha``, ``np.dot(phi, y[t - p:t])`` of a part of one, ``x @ (A @ x)`` of a matrix
  times a vector), unless the product must be an
  array (``py_rank_uses``: ``h = w1 @ x`` later multiplied, indexed or reduced over an axis): then
  the left one is a matrix, the common ``A @ x``;
* anything else keeps the default: the left operand a matrix, the right one a vector.

Only parameters with no other rank evidence (no index, no ``.shape`` unpacking, no callee that
fixes them) take these guesses; what the code shows always wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from . import py_intrinsics as lib


@dataclass
class Product:
    """One matrix product of the function: its node and its two operands."""

    node: cst.BaseExpression
    left: cst.BaseExpression
    right: cst.BaseExpression


def product_operands(node: cst.BaseExpression, canonical: Callable[[cst.BaseExpression], Optional[str]]
                     ) -> Optional[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """The operands of ``node`` when it is a matrix product (``a @ b``, ``np.dot(a, b)``,
    ``np.matmul(a, b)``, ``a.dot(b)``); else None. ``canonical``: a callee's library name (None
    for a method of a value)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
        return node.left, node.right
    if not isinstance(node, cst.Call) or any(a.keyword is not None or a.star for a in node.args):
        return None
    args = [a.value for a in node.args]
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == "dot" and canonical(func) is None:
        return (func.value, args[0]) if len(args) == 1 else None
    intr = lib.lookup(canonical(func))
    if intr is not None and intr.op == "matmul" and len(args) == 2:
        return args[0], args[1]
    return None


def transposed_name(node: cst.BaseExpression) -> Optional[cst.Attribute]:
    """``x.T`` itself, or in ``0.5 * x.T``, ``-x.T`` (a number times it, which ``@`` binds first:
    ``0.5 * x.T @ A @ x``); else None."""
    while True:
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            node = node.expression
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply) \
                and isinstance(node.left, (cst.Integer, cst.Float)):
            node = node.right
        else:
            break
    if isinstance(node, cst.Attribute) and node.attr.value == "T" and isinstance(node.value, cst.Name):
        return node
    return None


def _capitalized(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value[:1].isupper()


def guessed_ranks(p: Product, unknown: Callable[[cst.BaseExpression], bool], result_array: bool,
                  left_of_product: bool, result_number: bool = False) -> tuple[int, int]:
    """The ranks the left and right operands of ``p`` are taken to have, where ``unknown`` says
    an operand is a parameter nothing else gives a rank (only those ranks are used);
    ``result_array``: the product must be an array; ``left_of_product``: it is the left
    operand of another product (``(a @ B) @ c``); ``result_number``: it must be a number
    (``float(W2 @ h)``): two vectors, whatever their case."""
    if result_number:
        return 1, 1
    left, right = p.left, p.right
    right_rank = 2 if left_of_product or _capitalized(right) else 1
    if _capitalized(left):
        left_rank = 2
    elif left_of_product or _capitalized(right):
        left_rank = 1
    elif unknown(left) and (unknown(right) or _lower_case_name(right) or _matrix_times_vector(right)) \
            and not result_array:
        left_rank = 1  # np.dot(u, v), w @ w, np.dot(y, alpha) of a local alpha, x @ (A @ x)
    elif isinstance(left, cst.Name) and isinstance(right, cst.Name) and left.value == right.value \
            and not result_array:
        left_rank = 1
    else:
        left_rank = 2
    return left_rank, right_rank


def _matrix_times_vector(e: cst.BaseExpression) -> bool:
    """``A @ x``: a capitalized matrix times a lower-case vector, a vector by the notation."""
    return isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.MatrixMultiply) \
        and _capitalized(e.left) and _lower_case_name(e.right)


def dot_by_notation(left: cst.BaseExpression, right: cst.BaseExpression) -> bool:
    """Whether a product of ``left`` and ``right`` reads as a dot product of two vectors, a number
    by the notation's convention: lower-case names or parts of them (``x @ x``, ``np.dot(x[:i],
    z[:i])``), or a row or column part of a capitalized matrix (``np.dot(L[i, :i], z[:i])``)."""
    return _vector_by_notation(left) and _vector_by_notation(right)


def _vector_by_notation(e: cst.BaseExpression) -> bool:
    if _lower_case_name(e):
        return True
    # L[i, :i], A[:, j]: a matrix (capitalized) with one of its two axes taken by an index
    if isinstance(e, cst.Subscript) and _capitalized(e.value) and len(e.slice) == 2:
        indexed = [isinstance(el.slice, cst.Index) for el in e.slice]
        return indexed.count(True) == 1
    return False


def _lower_case_name(e: cst.BaseExpression) -> bool:
    """A name in lower case (``alpha``, ``h``), or a part of one (``y[t - p:t][::-1]``, ``x[i]``): a
    vector by the notation's convention."""
    while isinstance(e, cst.Subscript):
        e = e.value
    return isinstance(e, cst.Name) and e.value[:1].islower()
