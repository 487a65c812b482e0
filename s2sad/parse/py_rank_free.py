"""Which parameters of a Python function are used only in ways that mean the same at every rank.

Type inference takes a rank for each unannotated NumPy parameter, and where the code does not
prove it, the entry gradient checks it at run time (``py_types``, FunctionTypes.assumed). A
check is needed only where the generated code depends on the rank: ``np.sum(W)`` sums a vector
and a matrix alike, and its adjoint ``d_W += d`` broadcasts to either, so a program that uses
``W`` only so is differentiated right whatever ``W`` is, and a check would refuse callers the
gradient serves correctly. This module finds such parameters.

A use is *rank-free* when the parameter, taken elementwise (``W``, ``-W``, ``np.exp(W)``,
``W * 2.0``, ``W * W``: no other array takes part, so nothing broadcasts against it), is

* the only argument of a whole-array ``np.sum``/``np.max``/``np.min`` (or ``.sum()``,
  ``.max()``, ``.min()``), with no ``axis`` or ``keepdims``;
* the argument of ``len``, or the base of ``W.shape[k]`` (the extent of one leading axis, ``k``
  a literal counted from the front);
* or, as itself, an argument passed to a callee parameter that is rank-free there.

Anything else depends on the rank: an index, a slice, ``@``, ``.T``, ``np.mean`` (its adjoint
divides by ``W.shape[0]``, a vector's size), ``.size``, a binary operation with another array,
an assignment. A parameter taken for a number qualifies only when it is never
read, or only passed on to callee parameters that are never read: wherever a number takes part
in a computation, an array in its place would change what the gradient computes (its adjoint
would be an array). Even then, its kind decides the gradient's signature when it is
differentiated (a number's adjoint is returned, an array's is added into its shadow): the
pipeline checks it then.
"""

from __future__ import annotations

from typing import Callable, Iterator, Optional

import libcst as cst

from ..ssa.ops import MATH_FNS
from ..ssa.types import ArrayType, Type
from . import py_intrinsics as lib
from .py_flow import children, is_shape_subscript
from .py_module import ModuleInfo
from .py_params import bind_arguments

# Whole-array reductions whose result and adjoint are the same for every rank of the operand.
_RANK_FREE_REDUCTIONS = ("sum", "max_reduce", "min_reduce")
_RANK_FREE_METHODS = ("sum", "max", "min")

Path = list[cst.CSTNode]  # a node's ancestors, outermost first, and the node last


def _from_front(shape_read: cst.Subscript) -> bool:
    """``W.shape[k]`` with ``k`` a literal counted from the front (``0``, ``1``: not ``-1``)."""
    return len(shape_read.slice) == 1 and isinstance(shape_read.slice[0].slice, cst.Index) \
        and isinstance(shape_read.slice[0].slice.value, cst.Integer)


def param_uses(body: cst.CSTNode, names: frozenset[str]) -> dict[str, list[Path]]:
    """Every read of each name in ``names`` under ``body``, with its ancestors. Not reads: the
    name of an attribute (``np.sum``'s ``sum``), a keyword's name, and plain assignment targets
    (``x = 1.0`` does not read ``x``)."""
    out: dict[str, list[Path]] = {n: [] for n in names}
    written = _pure_targets(body)

    def visit(node: cst.CSTNode, path: Path) -> None:
        if isinstance(node, cst.Name) and node.value in names and id(node) not in written:
            out[node.value].append(path + [node])
            return
        for child in children(node):
            if isinstance(node, cst.Attribute) and child is node.attr:
                continue
            if isinstance(node, cst.Arg) and child is node.keyword:
                continue
            visit(child, path + [node])

    visit(body, [])
    return out


def _pure_targets(body: cst.CSTNode) -> set[int]:
    ids: set[int] = set()

    def names_of(t: cst.BaseExpression) -> Iterator[cst.Name]:
        if isinstance(t, cst.Name):
            yield t
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                yield from names_of(el.value)

    stack = [body]
    while stack:
        n = stack.pop()
        targets: list[cst.BaseExpression] = []
        if isinstance(n, cst.Assign):
            targets = [t.target for t in n.targets]
        elif isinstance(n, (cst.AnnAssign, cst.For)):
            targets = [n.target]
        for t in targets:
            ids |= {id(x) for x in names_of(t)}
        stack.extend(children(n))
    return ids


class RankFreeUses:
    """Classifies the uses of one function's parameters (see the module docstring)."""

    def __init__(self, info: ModuleInfo, locals_: frozenset[str], sigs: dict,
                 expr_type: Callable[[cst.BaseExpression], Optional[Type]]):
        self.info = info
        self.locals = locals_
        self.sigs = sigs
        self.expr_type = expr_type

    def rank_free(self, name: str, uses: list[Path], number: bool) -> bool:
        """``number``: the parameter is taken for a number; then only passing it on to a
        rank-free callee parameter (one the callee never reads) leaves its kind free."""
        if number:
            return all(len(path) >= 3 and isinstance(path[-2], cst.Arg) and isinstance(path[-3], cst.Call)
                       and self.user_param_rank_free(path[-3], path[-2], path[-1]) for path in uses)
        return all(self.use_is_rank_free(name, path) for path in uses)

    def use_is_rank_free(self, name: str, path: Path) -> bool:
        node = path[-1]
        i = len(path) - 2
        while i >= 0:
            parent = path[i]
            if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, (cst.Minus, cst.Plus)):
                node, i = parent, i - 1
            elif isinstance(parent, cst.BinaryOperation) and not isinstance(parent.operator, cst.MatrixMultiply):
                other = parent.right if node is parent.left else parent.left
                if not self.only_array_is(other, name):
                    return False  # broadcast against another array: which axes meet depends on the rank
                node, i = parent, i - 1
            elif isinstance(parent, cst.Attribute) and parent.value is node and i >= 1:
                outer = path[i - 1]
                if isinstance(outer, cst.Call) and outer.func is parent:  # a method: W.sum()
                    return (parent.attr.value in _RANK_FREE_METHODS and not outer.args
                            and self.info.canonical_name(parent, self.locals) is None)
                # W.shape[k]: the extent of a leading axis, the same at every rank that has it
                # (W.shape[-1] counts from the end: which axis it is depends on the rank)
                return parent.attr.value == "shape" and is_shape_subscript(outer) and isinstance(node, cst.Name) \
                    and _from_front(outer)
            elif isinstance(parent, cst.Arg) and i >= 1 and isinstance(path[i - 1], cst.Call):
                call = path[i - 1]
                if parent.keyword is not None or parent.star:
                    return False
                if self.user_param_rank_free(call, parent, node):
                    return True
                op = self.elementwise_or_reduction(call)
                if op == "reduction":
                    return True
                if op != "elementwise":
                    return False
                node, i = call, i - 2
            else:
                return False
        return False

    def user_param_rank_free(self, call: cst.Call, arg: cst.Arg, node: cst.CSTNode) -> bool:
        """``h(W)`` with ``h``'s parameter rank-free there."""
        func = call.func
        if not (isinstance(node, cst.Name) and isinstance(func, cst.Name) and func.value in self.info.functions
                and func.value not in self.locals):
            return False
        sig = self.sigs.get(func.value)
        if sig is None:
            return False
        bound, _ = bind_arguments(call, sig.name, sig.param_names, sig.positional)
        k = next((i for i, a in enumerate(bound) if a is arg), None)
        return k is not None and sig.param_names[k] in sig.rank_free

    def elementwise_or_reduction(self, call: cst.Call) -> Optional[str]:
        """``"reduction"``: a whole-array reduction or ``len`` of its only argument;
        ``"elementwise"``: a NumPy function mapping its only argument elementwise."""
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        canonical = self.info.canonical_name(call.func, self.locals)
        intr = lib.lookup(canonical)
        if intr is None or canonical is None:
            return None
        if intr.op in _RANK_FREE_REDUCTIONS or intr.op == "len":
            return "reduction"
        unary = intr.min_args == intr.max_args == 1 and (intr.op in MATH_FNS or intr.op == "square")
        if unary and (canonical.startswith("numpy.") or canonical == "builtins.abs"):
            return "elementwise"
        return None

    def only_array_is(self, expr: cst.BaseExpression, name: str) -> bool:
        """Whether every array in ``expr`` is ``name`` taken elementwise (a number is no array)."""
        if not isinstance(self.expr_type(expr), ArrayType):
            return True
        if isinstance(expr, cst.Name):
            return expr.value == name
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self.only_array_is(expr.expression, name)
        if isinstance(expr, cst.BinaryOperation) and not isinstance(expr.operator, cst.MatrixMultiply):
            return self.only_array_is(expr.left, name) and self.only_array_is(expr.right, name)
        if isinstance(expr, cst.Call) and self.elementwise_or_reduction(expr) == "elementwise":
            return self.only_array_is(expr.args[0].value, name)
        return False
