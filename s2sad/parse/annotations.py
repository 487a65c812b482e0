"""Checkpoint annotations: a comment on the line above a loop, read into the loop's attributes.

``# s2sad: checkpoint binomial(snapshots=10)`` (Python) or ``#pragma s2sad checkpoint
binomial(10)`` (C) on the line right above a ``for`` or ``while`` gives that loop a schedule
(``ssa/attrs.py``: ``checkpoint`` and ``checkpoint_at``), as ``parse/omp.py`` makes an OpenMP
pragma a ``parallel`` attribute. Later stages read the attribute, never the source text.
A malformed schedule, and an annotation that is not right above a loop (it would apply to
nothing), are located errors here; whether the loop can be checkpointed is reverse mode's
question (``adjoint/checkpoint.py``).
"""

from __future__ import annotations

import re
from typing import Optional

from ..diagnostics import error
from ..ssa.attrs import SCHEDULE_HELP, Schedule, parse_schedule, set_loop_schedule
from ..ssa.ir import Function, Module, Op, SourceLoc, lines_of

_PY_ANNOTATION = re.compile(r"^\s*#\s*s2sad\s*:\s*checkpoint\b\s*(.*?)\s*$")
_C_ANNOTATION = re.compile(r"^\s*#\s*pragma\s+s2sad\s+checkpoint\b\s*(.*?)\s*$")


def annotate_loops(module: Module) -> None:
    """Give every annotated loop of ``module`` its schedule; a located error for a misplaced or
    malformed annotation."""
    for fn in module.functions.values():
        _check_placement(module, fn)
        for op in fn.walk():
            if op.name in ("for", "while"):
                found = _annotation_above(module, op)
                if found is not None:
                    set_loop_schedule(op, *found)


def _annotation_above(module: Module, op: Op) -> Optional[tuple[Schedule, SourceLoc]]:
    """The schedule written on the line just above ``op``'s first line, with its location."""
    lines = lines_of(module.source_lines, op.loc.file) if op.loc is not None else []
    if op.loc is None or op.loc.line < 2 or op.loc.line - 1 > len(lines):
        return None
    line = lines[op.loc.line - 2]
    m = _PY_ANNOTATION.match(line) or _C_ANNOTATION.match(line)
    if m is None:
        return None
    col = line.index("checkpoint") + len("checkpoint") + 1
    col += len(line[col - 1 :]) - len(line[col - 1 :].lstrip())
    where = SourceLoc(op.loc.file, op.loc.line - 1, col, op.loc.line - 1, max(col + 1, len(line.rstrip()) + 1))
    try:
        return parse_schedule(m.group(1)), where
    except ValueError as e:
        raise error(str(e), where, hint=f"a schedule is one of {SCHEDULE_HELP}") from None


def _check_placement(module: Module, fn: Function) -> None:
    """An annotation in ``fn`` must sit on the line right above a loop: one anywhere else would
    be silently ignored."""
    lines = [op.loc.line for op in fn.walk() if op.loc is not None and op.loc.file == (fn.loc.file if fn.loc else "")]
    if fn.loc is None or not lines:
        return
    source = lines_of(module.source_lines, fn.loc.file)
    for k in range(fn.loc.line, min(max(lines), len(source))):
        text = source[k - 1]
        if not (_PY_ANNOTATION.match(text) or _C_ANNOTATION.match(text)):
            continue
        below = source[k].lstrip() if k < len(source) else ""
        if not re.match(r"(for|while|do)\b", below):
            col = len(text) - len(text.lstrip()) + 1
            raise error(
                "this checkpoint annotation is not on the line right above a loop, so it would apply to nothing",
                SourceLoc(fn.loc.file, k, col, k, len(text.rstrip()) + 1),
                hint="put it directly above the `for` line of the loop to checkpoint",
            )
