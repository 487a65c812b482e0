"""Global numbers as values where nothing can change them while the gradient runs.

The front end reads a file-scope number that is not const (``double scale = 2.5;``) where the
source reads it, by an ``extern`` op with ``global`` set (``c_lower.global_read``): an op that is
never moved, merged or recomputed, so that a value some other code may change between two reads
is read where the source reads it and kept for the reverse sweep. That costs a tape of it per
iteration of every loop that reads it (``tape_scale_value[i] = scale``), and a read per
iteration in the forward sweep.

No function of the file writes a global or takes its address (the front end refuses both), so
only code s2sad does not see may change one: a function defined elsewhere, called through an
``extern`` op (a custom adjoint's function is one too). Where the function differentiated and
every function it reaches call none, a global holds one value from the gradient's start to its
end: its reads become ``global`` ops, pure and unable to fail (``opdefs``), which passes hoist
out of loops, merge, and recompute in the reverse sweep like any other operand-free value.
"""

from __future__ import annotations

from ..ssa.ir import Builder, Module


def settle_globals(module: Module) -> None:
    """Make every global read of ``module`` a ``global`` op, where no op of it calls code defined
    elsewhere (``module`` holds the function differentiated and the functions it reaches)."""
    ops = [op for fn in module.functions.values() for op in fn.walk()]
    if any(op.name.startswith("extern") and not op.attrs.get("global") for op in ops):
        return  # a call out of the file may change any global between two reads
    for op in ops:
        if op.name == "extern" and op.attrs.get("global"):
            read = Builder(op.parent).before_op(op).create(
                "global", [], [op.result.type], dict(op.attrs), hints=[op.result.name_hint], loc=op.loc)
            op.result.replace_all_uses_with(read.result)
            op.erase()
