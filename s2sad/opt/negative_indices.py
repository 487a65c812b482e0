"""C output's negative indices into arrays of unknown length: a stop, not a wrong element.

The front end counts an index that may be negative from the end, as Python does (a ``select``
marked ``FROM_END``: ``k < 0 ? k + n : k``, ``ssa.build.from_end``). C can count so where it
knows the array's length: a local array's, or a parameter's that an annotation gives
(``x: "f64[n]"``). A parameter of unannotated Python has none; the C gradient would have to take
it as a size parameter of its own, which a helper cannot, and which would change the entry's
signature with the optimization level (a helper inlined or not). There the index is checked
instead: a negative one stops the program with a message on stderr (``abort()``), where Python
would have counted from the end, and the gradient's signature stays as the source's.
"""

from __future__ import annotations

from ..analysis.effects import PassContext, array_root
from ..analysis.extents import Sizes
from ..ssa.attrs import FROM_END, grad_info
from ..ssa.ir import Block, Builder, Function, Module, Op, Value
from .dce import dce_module


def run(module: Module, ctx: PassContext) -> None:
    sizes = Sizes(module)
    checked = False
    for fn in module.functions.values():
        guarded: set[tuple[int, int]] = set()  # (block, test): one stop per test in a block serves all
        for op in [op for op in fn.walk() if op.name == "select" and op.attrs.get(FROM_END)]:
            arr = _array_of(op)
            if arr is not None and not _length_known(fn, arr, sizes):
                key = (id(op.parent), id(op.operands[0]))
                if key in guarded:  # x[t] and y[t]: the stop before the first reads serves the second
                    op.results[0].replace_all_uses_with(op.operands[2])
                    op.erase()
                else:
                    _checked(fn, op, arr)
                    guarded.add(key)
                checked = True
    if checked:  # the sums and lengths the selects read
        dce_module(module, ctx.called_from_outside)


def _array_of(op: Op) -> "tuple[Value, int] | None":
    """The array (and axis) whose length ``op`` adds to a negative index: the ``dim`` the sum
    reads; None where the length is no ``dim`` any more (a pass read it from what made the array)."""
    total = op.operands[1].defining_op
    if total is None or total.name != "add":
        return None
    for v in total.operands:
        d = v.defining_op
        if d is not None and d.name == "dim":
            return d.operands[0], d.attrs["axis"]
    return None


def _length_known(fn: Function, arr: "tuple[Value, int]", sizes: Sizes) -> bool:
    """Whether C output knows the length: a local array's, or a parameter's an annotation gives."""
    root = array_root(arr[0])
    if root is None:
        return True
    made = root.defining_op
    if made is not None and made.name == "copy":  # a snapshot of x (checkpointing): x's length
        return _length_known(fn, (made.operands[0], arr[1]), sizes)
    if made is not None and made.name == "alloc" and arr[1] < len(made.operands):
        d = made.operands[arr[1]].defining_op
        if d is not None and d.name == "dim":  # sized as another array: that array's length
            return _length_known(fn, (d.operands[0], d.attrs["axis"]), sizes)
    if not root.is_block_arg or root.owner is not fn.body:
        return True  # memory the function made: its allocation says its extents
    index = fn.params.index(root)
    info = grad_info(fn)
    owner = fn.params[info.shadows.get(index, index)] if info is not None else root  # d_x: x's
    annotated = sizes.annotations(fn).get(owner.name_hint) or []
    return (arr[1] < len(annotated) and annotated[arr[1]] is not None) or (index, arr[1]) in sizes.exact_axes(fn)


def _checked(fn: Function, op: Op, arr: "tuple[Value, int]") -> None:
    """``op``'s index itself, after a stop where it is negative."""
    negative, _, k = op.operands
    b = Builder(op.parent, op.loc)
    b.before = op
    then, rest = Block(), Block()
    stop = Builder(then, op.loc)
    info = grad_info(fn)
    name = info.primal if info is not None else fn.name
    root = array_root(arr[0])
    spelled = root.name_hint if root is not None and root.name_hint else "an array"
    stop.create("stop", [], [], {
        "call": "abort", "text": f"an index into '{spelled}' below 0",
        "stderr": f"{name}: a negative index into '{spelled}'",
        "why": f"Python counts it from the end; C can where '{spelled}' has an annotated length"})
    stop.create("yield", [], [])
    Builder(rest, op.loc).create("yield", [], [])
    b.create("if", [negative], [], regions=[then, rest])
    op.results[0].replace_all_uses_with(k)
    op.erase()
