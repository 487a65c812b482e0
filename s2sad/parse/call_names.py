"""Names for the values of calls that the source leaves unnamed: ``wave_value`` for the call in
``s += x[i] * wave(x[i], a)``.

A front end names a value after the variable it is assigned to (``double c = wave(x);`` names
it ``c``), and only when the value has no name yet; so a call's value is created unnamed, and
only the values no assignment named are given their callee's name here, once the function is
lowered: the user's name always wins.
"""

from __future__ import annotations

from ..ssa.ir import Module


def name_call_results(module: Module, ops: tuple[str, ...]) -> None:
    """Name each unnamed single result of the ``ops`` ("call", "extern") ``<callee>_value``."""
    for fn in module.functions.values():
        for op in fn.walk():
            if op.name in ops and len(op.results) == 1 and not op.result.name_hint:
                op.result.name_hint = f"{op.attrs['callee']}_value"
