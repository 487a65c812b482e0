"""Shape-generic parameters: numbers in the IR that the Python gradient serves at any shape.

An unannotated float parameter that only meets arrays in broadcasting arithmetic (``W @ x + b``,
``(y - pred) ** 2``, ``np.where(c, a, b)``, ``np.maximum(0.0, z - t)``) is a number or an array of
any shape that broadcasts there, and the primal cannot tell which. Type inference takes it for a
number (``py_types``: an assumed rank 0). The Python gradient computes the same at every such
shape, provided that

* every value computed from it (through ``+ - * /``, negation and constant powers, and the
  NumPy math functions whose adjoint is arithmetic: ``np.exp``, ``np.log``, ``np.sqrt``,
  ``np.tanh``...) is used only in such arithmetic or as an operand of an elementwise ``arr.`` op
  that has an array operand, so that NumPy evaluates the forward sweep exactly as the primal
  does, whatever its shape;
* it has no more axes than the result of each such ``arr.`` op (so its shape never makes the
  result bigger than the IR takes it to be: checked at the gradient's entry);
* the adjoint contributions it gets from those ops are summed down to its run-time shape
  (``arr.sum_to_shape``, the way NumPy broadcast it up), not to a number; and so are those the
  other operands of its scalar arithmetic get (``x - m`` with ``m`` a number computed elsewhere,
  ``np.sum(w * x) / np.sum(w)``: ``m``'s contribution has ``x``'s shape, summed to ``m``'s).

This module finds such parameters of a function and marks the ``arr.`` ops where their values
meet arrays (the op attribute ``array_rules.GENERIC_OPERANDS``) and the scalar ops whose other
operands' contributions are summed (``rules.NUMBER_OPERANDS``), which the adjoint rules read. A value
computed from it may be the function's result (``return np.exp(x)``, ``K / (1 + np.exp(-r *
t))``): then the result has its shape, and the seed ``d_return`` takes it. A parameter with any
other use (a call, a comparison, another math function, a loop-carried value, a store) is not
shape-generic: it keeps its rank check (a number). Every op computing a value from one is marked
(``GENERIC_VALUE``): a number in the IR that no tape of numbers may keep."""

from __future__ import annotations

from typing import Optional

from ..ssa import array_ops
from ..ssa.array_ops import PREFIX, shape_unit_axes
from ..ssa.attrs import GENERIC_MATH, GENERIC_VALUE, SCIPY, SOURCE_EXTENT, numpy_spelled, whole_reduced
from ..ssa.mathfns import MATH
from ..ssa.build import const_value
from ..ssa.ir import Function, Op, Value
from .array_rules import GENERIC_OPERANDS
from .rules import NUMBER_OPERANDS, maps_arrays

_ARRAY_ELEMENTWISE = tuple(PREFIX + n for n in array_ops.ELEMENTWISE)
_SCALAR_ARITHMETIC = ("add", "sub", "mul", "div", "neg", "pow")
_WHOLE_REDUCTIONS = tuple(PREFIX + n for n in ("sum", "max", "min"))
# Math functions whose adjoint is arithmetic on the operand and the result (no other function, no
# branch): spelled as NumPy's (np.exp), they map an array as they map a number, and so does the
# adjoint.
_ELEMENTWISE_MATH = tuple("math." + f for f in ("exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "tanh"))


def find_shape_generic(fn: Function, candidates: list[str], wrt: set[int], carried: bool = True) -> dict[str, int]:
    """The candidates (parameter names) that are shape-generic in ``fn``: name -> the most axes it
    may have (the least rank of the arrays its values meet; -1, any, where it meets none and the
    function returns or wholly reduces a value computed from it: ``return np.exp(x)`` maps any
    shape). One whose extent the source reads (``len(x)``, ``x.shape[0]``: the primal's number at
    any rank) must have that axis: ``fn.attrs["generic_fewest"]``, name -> the fewest axes.
    Marks the ``arr.`` ops those values meet (``GENERIC_OPERANDS``). ``wrt``: the
    differentiated parameters (an inactive parameter may take part in the arithmetic: it gets no
    adjoint). ``carried``: whether a ``for`` loop may carry such values (``total = total + c[k] *
    x ** k``: Python rebinds the number to an array; Numba gives a variable one type, and does not).

    A candidate is a number or an array in the IR (its rank guessed). Values computed elementwise
    from candidates alone (``k + r``, ``gammaln(r)``) have a shape only the run time knows; where
    one meets an array of a known rank, that rank bounds the candidate's axes. A candidate whose
    values have another use is not shape-generic, and the others are looked at again without it
    (its values then have the IR's rank: they bound the others' axes where they meet them)."""
    inactive = {p for i, p in enumerate(fn.params) if i not in wrt and p.type.is_float}
    chosen = [p for p in fn.params if p.name_hint in candidates and _float_valued(p)]
    while True:
        spread = _spread(chosen)
        closures = {p: _closure(fn, p, inactive, spread, carried) for p in chosen}
        failed = [p for p in chosen if closures[p] is None]
        if not failed:
            break
        # Those whose own values have another use go first: one that failed only through what
        # it meets of theirs may pass once their values have the IR's rank again.
        alone = {p for p in failed if _closure(fn, p, inactive, _spread([p]), carried) is None}
        chosen = [p for p in chosen if p not in (alone or failed)]
    found: dict[str, int] = {}
    fewest_axes: dict[str, int] = {}
    marks: dict[Op, set[int]] = {}
    numbers: dict[Op, set[int]] = {}
    quiet_math: list[Op] = []
    for p, result in closures.items():
        assert result is not None
        most, fewest, meets, summed, quiet, values = result
        quiet_math += quiet
        for v in values:
            v.defining_op.attrs[GENERIC_VALUE] = True  # type: ignore[union-attr]
        found[p.name_hint] = most
        if fewest:
            fewest_axes[p.name_hint] = fewest
        for op, k in meets:
            marks.setdefault(op, set()).add(k)
        for op, k in summed:
            numbers.setdefault(op, set()).add(k)
    if fewest_axes:  # those whose extents the source reads (len(x)): arrays of at least so many axes
        fn.attrs["generic_fewest"] = fewest_axes
    for op, ks in marks.items():
        op.attrs[GENERIC_OPERANDS] = sorted(ks)
    for op in quiet_math:
        op.attrs[GENERIC_MATH] = True
    for op, ks in numbers.items():
        # Summed to the operand's run-time shape: a number's, or a shape-generic value's (what
        # another parameter's closure makes it), either way the adjoint of its broadcasting.
        op.attrs[NUMBER_OPERANDS] = sorted(ks)
    return found


def _float_valued(v: Value) -> bool:
    return v.type.is_float or (v.type.is_array and v.type.elem.is_float)  # type: ignore[attr-defined]


def _array_elementwise(op: Op, k: int) -> bool:
    """``op`` maps its operands elementwise with NumPy's broadcasting, and its adjoint reduces
    each contribution to its operand's shape (``array_rules.reduce_to``); ``k``: the operand.
    (So does ``arr.broadcast`` of a value to an array's shape, its operand 0: scipy's ``xlogy(y,
    p)`` of a number ``y`` and an array ``p``.)"""
    return op.name in _ARRAY_ELEMENTWISE or (op.name == PREFIX + "where" and k > 0) or (
        op.name == PREFIX + "broadcast" and k == 0 and op.attrs.get("axis") is None)


def _array_map(op: Op) -> bool:
    """An ``arr.`` op of one array whose result and adjoint have its shape, whatever it is."""
    return op.name == PREFIX + "neg" or (op.name.startswith(PREFIX + "math.") and len(op.operands) == 1)


def _whole_reduction(op: Op) -> bool:
    """``np.sum(x)``, ``np.max(x)``: a number from every element, whose adjoint spreads back over
    the operand as it is at run time (``np.full_like``), of any shape."""
    return (op.name in _WHOLE_REDUCTIONS and op.attrs.get("axis") is None and not op.attrs.get("keepdims")
            and op.results and not op.result.type.is_array)


def _spread(params: list[Value]) -> set[Value]:
    """The values computed elementwise from ``params`` and numbers alone, or from them and arrays
    with an axis of extent 1 (``x[:, None] - mu``: ``mu`` may stretch it): their shapes are the
    broadcast of those the parameters have when the function runs, not the IR's."""
    spread = set(params)
    todo = list(params)
    while todo:
        v = todo.pop()
        for op, k in v.uses:
            if not op.results or len(op.results) != 1 or op.result in spread or not _float_valued(op.result):
                continue
            if op.result.type.is_array:
                if not (_array_elementwise(op, k) or _array_map(op)):
                    continue
                if any(o.type.is_array and o not in spread and not shape_unit_axes(o) for o in op.operands):
                    continue  # it meets an array of the IR's shape (and no axis of it it may stretch)
            elif not (op.name in _SCALAR_ARITHMETIC or op.name.startswith("math.")):
                continue
            spread.add(op.result)
            todo.append(op.result)
    return spread


def _closure(fn: Function, p: Value, inactive: set[Value], spread: set[Value], carried: bool
             ) -> Optional[tuple[int, int, list[tuple[Op, int]], list[tuple[Op, int]], list[Op], list[Value]]]:
    """The values computed from ``p`` by elementwise arithmetic, all of whose uses are allowed:
    the least rank of the ``arr.`` results they meet (arrays of a rank the IR knows), those uses
    and those of values that meet each other (``spread``: of the run time's shapes), the operands
    of scalar arithmetic that are active numbers (``x - m``, ``m`` a number computed elsewhere:
    its contribution takes the result's shape, and is summed to a number), and the math functions
    of values that take no adjoint (``gammaln(k + 1)`` of data ``k``); None otherwise. A value
    that is an array in the IR is used in the function's top-level block only (no loop or branch
    allocates its adjoint by the IR's extents). A value a ``for`` loop carries (``carried``) is one
    too, on the terms of ``_carried_problem``."""
    generic = {p}
    # Values computed from inactive inputs alone (``p`` not differentiated): no adjoint reaches
    # them, so any function with an array spelling maps them, whatever its derivative.
    quiet = {p} if p in inactive else set()
    quiet_math: list[Op] = []

    def of_quiet(op: Op) -> bool:
        return all(w in quiet or w in inactive or const_value(w) is not None for w in op.operands)

    def follow(op: Op) -> None:
        if op.result not in generic:
            generic.add(op.result)
            todo.append(op.result)

    todo = [p]
    meets: list[tuple[Op, int]] = []
    summed: list[tuple[Op, int]] = []
    least: Optional[int] = None
    returned = reduced = False
    fewest = 0  # the axes it must have: one past the last it reads an extent of
    while todo:
        v = todo.pop()
        if whole_reduced(fn, v):
            # np.sum(total), which the IR takes for total: that is its value at any shape only as
            # the function's result, whose seed d_return then spreads over it (the Python output
            # returns np.sum of it where it returns the value: emit_py)
            if any(op.name != "return" or len(op.operands) != 1 or op.parent is not fn.body for op, _ in v.uses):
                return None
            returned = True
            continue
        for op, k in v.uses:
            if v is p and op.name == "dim" and op.attrs.get(SOURCE_EXTENT):
                fewest = max(fewest, op.attrs["axis"] + 1)  # len(x): the primal's number at any rank
                continue
            if v.type.is_array and op.parent is not fn.body:
                return None
            if _array_elementwise(op, k):
                if not op.results or not op.result.type.is_array or (op.name == PREFIX + "pow" and k == 1):
                    return None  # x ** gamma: the adjoint's exponent branches on gamma (a number's)
                if v.type.is_array and op.result not in spread and op.result.type.rank > max(
                        (o.type.rank for j, o in enumerate(op.operands)  # type: ignore[attr-defined]
                         if j != k and o.type.is_array), default=0):
                    # X - mu with X the batch: its axes are the result's, which the IR takes it
                    # to have (a smaller X would give the rest of the code fewer): it keeps its
                    # rank check
                    return None
                meets.append((op, k))
                if op.result in spread:
                    follow(op)  # of other generic values only: its shape is the run time's too
                else:
                    rank = op.result.type.rank  # type: ignore[attr-defined]
                    least = rank if least is None else min(least, rank)
            elif v.type.is_array and _array_map(op):
                follow(op)
            elif v.type.is_array and _whole_reduction(op):
                reduced = True
            elif op.name == "return" and len(op.operands) == 1 and not v.type.is_array:
                returned = True  # the function maps its shape: the seed d_return takes it
            elif carried and op.name == "yield" and op.parent.parent_op is not None \
                    and op.parent.parent_op.name == "for" and not v.type.is_array:
                loop = op.parent.parent_op  # the loop carries it: its next value, and its result
                for w in (op.parent.args[k + 1], loop.results[k]):
                    if w not in generic:
                        generic.add(w)
                        todo.append(w)
            elif carried and op.name == "for" and k >= 3 and not v.type.is_array:
                for w in (op.regions[0].args[k - 2], op.results[k - 3]):  # it starts a value the loop carries
                    if w not in generic:
                        generic.add(w)
                        todo.append(w)
            elif v.type.is_array:
                return None
            elif op.name in _ELEMENTWISE_MATH and numpy_spelled(op) and op.results and op.result.type.is_float:
                follow(op)
            elif _maps_arrays(op) and of_quiet(op):
                quiet_math.append(op)
                if op.result not in generic:
                    quiet.add(op.result)
                follow(op)
            elif _maps_arrays(op) and len(op.operands) == 1 and maps_arrays(op.name):
                # gammaln(n - k + b) of data n, k and an active number b, np.abs(y), np.sin(x):
                # NumPy's or SciPy's ufunc, and what its adjoint builds maps arrays too (rules:
                # digamma SciPy's, cos NumPy's, the choice of abs's sign np.where)
                quiet_math.append(op)
                follow(op)
            elif op.name in _SCALAR_ARITHMETIC and op.results and op.result.type.is_float:
                if op.name == "pow" and k != 0:
                    return None  # a ** x: the adjoint's choice on a (a number's) would not map arrays
                if op.name == "pow" and const_value(op.operands[1]) is None:
                    quiet_math.append(op)  # x ** k: its adjoint chooses on k (np.where, rules)
                for j, w in enumerate(op.operands):
                    if j != k and not (w in generic or w in inactive or const_value(w) is not None):
                        if w.type.is_float:
                            summed.append((op, j))  # x - m: m's adjoint, shaped like x, summed
                if op.result not in generic and of_quiet(op):
                    quiet.add(op.result)
                follow(op)
            else:
                return None
    if any(_loop_carried(v) for v in generic) and _carried_problem(generic, inactive):
        return None
    # (an operand met before a loop carried it into the closure is no number computed elsewhere)
    summed = [(op, j) for op, j in summed if op.operands[j] not in generic]
    values = [v for v in generic if not v.is_block_arg]
    if least is None:
        return (-1, fewest, meets, summed, quiet_math, values) if returned or reduced else None
    return (least, fewest, meets, summed, quiet_math, values) if fewest <= least else None


def _carried_problem(generic: set[Value], inactive: set[Value]) -> bool:
    """Whether the values of a closure that ``for`` loops carry break the terms on which the adjoint
    serves them at any shape. The reverse sweep has no tape for such a value (it may be an array),
    so it must never read one: every value computed from the value a loop carries into an
    iteration is only added, subtracted, negated or carried on (``total = total + c[k] * x ** k``),
    ops whose adjoint does not read their operands. Its shape is its start's (a number) in the first
    iteration and the broadcast of what is added to it after that, and the adjoint the reverse loop
    carries keeps the latter all the way, so the loop must start it from a value that takes no
    adjoint (a constant, data) or from one carried the same way by an enclosing loop."""
    # (the result of a loop inside another one is a value of each iteration of the outer loop too)
    carried = {v for v in generic if _loop_carried(v) or _nested_loop_result(v)}
    todo = list(carried)
    while todo:
        v = todo.pop()
        for op, k in v.uses:
            if op.name == "yield" and op.parent.parent_op is not None and op.parent.parent_op.name == "for":
                continue  # the loop's next value and its result: in ``generic`` (and so looked at)
            if op.name == "for" and k >= 3:
                continue  # the start of a value an inner loop carries: that loop's (looked at)
            if op.name not in ("add", "sub", "neg") or op.result not in generic:
                return True
            if op.result not in carried:
                carried.add(op.result)
                todo.append(op.result)
    for arg in [v for v in carried if _loop_carried(v)]:
        start = arg.owner.parent_op.operands[2 + arg.index]
        if not (const_value(start) is not None or start in inactive or start in carried):
            return True
    return False


def _loop_carried(v: Value) -> bool:
    """``v`` is the value a ``for`` loop carries into an iteration (a block argument past the counter)."""
    return v.is_block_arg and v.owner.parent_op is not None and v.owner.parent_op.name == "for" and v.index > 0


def _nested_loop_result(v: Value) -> bool:
    """``v`` is the result of a loop inside another one: a value of each iteration of the outer one."""
    op = v.defining_op
    return op is not None and op.name == "for" and op.parent.parent_op is not None


def _maps_arrays(op: Op) -> bool:
    """A math function of numbers the source spelled with a NumPy or SciPy ufunc (``np.sin``,
    ``gammaln``), which maps an array element by element."""
    if not op.name.startswith("math.") or not (numpy_spelled(op) or op.attrs.get(SCIPY)) or not op.results \
            or not op.result.type.is_float:
        return False
    row = MATH.get(op.name[5:])
    return row is not None and (row.ufunc or row.scipy is not None)
