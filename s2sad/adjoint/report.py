"""The memory report of a gradient: what the reverse sweep caches, per loop, and the schedules.

``GradientTransform`` records every tape it makes (``TapeEntry``) and every
checkpointed loop (``CheckpointEntry``) on the gradient function
(``GradientTransform.memory``). After the adjoint cleanup passes, ``finish`` drops the
tapes those passes removed and puts the summary as a comment at the top of the
gradient function; ``s2sad grad --report`` prints the same lines on stderr.
Sizes are per iteration (a tape holds one value per iteration of the loops
around it), since trip counts are known only when the gradient runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..ssa.ir import Function, Module, Op
from ..ssa.types import Type


def elem_bytes(t: Type) -> int:
    name = str(t)
    return 4 if name in ("f32", "i32") else 1 if name == "bool" else 8


@dataclass
class TapeEntry:
    """One cache: its variable, the value it holds, per iteration of which loops."""

    tape: str
    value: str
    elem: Type
    loop_lines: list[int]  # the loops around the taped value, outermost first
    top_line: int  # the top-level statement (loop) it belongs to
    op: Op  # the alloc / tape.new making it (gone if a cleanup pass removed the tape)
    per_reversed_iteration: Optional[int] = None  # re-made per iteration of this checkpointed loop
    array: bool = False  # holds a whole array per iteration, not one value


@dataclass
class CopyEntry:
    """A copy of an array the forward sweep takes before a top-level loop, which the reverse
    sweep reads what the loop's loads read from (``availability._entry_copy``)."""

    name: str
    array: str
    elem: Type
    top_line: int
    op: Op  # the copy (gone if a cleanup pass removed it)


@dataclass
class CheckpointEntry:
    line: int
    schedule: str
    slots: str
    slot_size: str


@dataclass
class MemoryReport:
    function: str
    primal: str
    tapes: list[TapeEntry] = field(default_factory=list)
    checkpoints: list[CheckpointEntry] = field(default_factory=list)
    copies: list[CopyEntry] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"memory of {self.function} (reverse sweep of {self.primal}):"]
        tapes = [t for t in self.tapes if t.op.parent is not None]
        schedules = {c.line: c for c in self.checkpoints}
        copies = [c for c in self.copies if c.op.parent is not None]
        tops = sorted({t.top_line for t in tapes} | set(schedules) | {c.top_line for c in copies})
        if not tops:
            out.append("  nothing cached: the reverse sweep recomputes or reads back every value it needs")
        for top in tops:
            ck = schedules.get(top)
            if ck is not None:
                out.append(f"  loop at line {top}: {ck.schedule} checkpointing")
                out.append(f"    snapshots: {ck.slots} x ({ck.slot_size}), and one work copy of the state")
            else:
                out.append(f"  loop at line {top}: store-all")
            mine = [t for t in tapes if t.top_line == top]
            if not mine:
                out.append("    no tape")
            for c in copies:
                if c.top_line == top:
                    out.append(f"    {c.name}: {c.array} as the loop begins, {elem_bytes(c.elem)} B x its length")
            for t in mine:
                lines = "line" + ("s " if len(t.loop_lines) > 1 else " ") + ", ".join(str(n) for n in t.loop_lines)
                again = f", remade per line-{top} iteration" if t.per_reversed_iteration is not None else ""
                what = f"{t.value} " if t.value else ""
                size = f"{elem_bytes(t.elem)} B x its length" if t.array else f"{elem_bytes(t.elem)} B"
                out.append(f"    {t.tape}: {what}{t.elem}, {size} x iterations of {lines}{again}")
        return out


def finish(module: Module, reports: list[MemoryReport]) -> list[str]:
    """Put each gradient's report at the top of its body; return all the report lines."""
    out: list[str] = []
    for report in reports:
        fn = module.functions.get(report.function)
        if fn is None:
            continue  # a gradient no one calls any more
        lines = report.lines()
        out += lines
        _comment_at_top(fn, lines)
    return out


def _comment_at_top(fn: Function, lines: list[str]) -> None:
    op = Op("comment", [], [], {"text": "\n".join(lines), "keep": True}, loc=fn.loc)
    fn.body.insert(0, op)
