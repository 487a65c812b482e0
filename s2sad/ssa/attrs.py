"""Typed readings of attributes the front ends put on ops, for the stages after them.

A loop's checkpointing schedule: the front ends read the annotation on the line above a loop
(``parse/annotations.py``) into ``checkpoint = "binomial(10)"`` and ``checkpoint_at = [line,
column, end column]`` (where the schedule is written, for errors about it); reverse mode
(``adjoint/checkpoint.py``) and the CUDA kernelizer read them back with ``loop_schedule``.
The ``--checkpoint`` option is read with the same ``parse_schedule``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .ir import Op, SourceLoc

SCHEDULES = ("store-all", "recompute", "periodic", "binomial")
SCHEDULE_HELP = "store-all, recompute, periodic(K) or binomial(S), with K and S positive integers"
_ARG_NAMES = {"periodic": ("k", "every", "period"), "binomial": ("snapshots", "s")}
_SPEC = re.compile(r"^([a-z-]+)\s*(?:\(\s*(?:([a-z_]+)\s*=\s*)?([^)]*?)\s*\))?\s*$")


@dataclass(frozen=True)
class Schedule:
    """A checkpointing schedule: its kind and its number (period or snapshots; 0 if none)."""

    kind: str
    n: int = 0

    def __str__(self) -> str:
        if self.kind == "periodic":
            return f"periodic({self.n})"
        if self.kind == "binomial":
            return f"binomial({self.n})"
        return self.kind


STORE_ALL = Schedule("store-all")


def parse_schedule(text: str) -> Schedule:
    """``binomial(snapshots=10)`` -> Schedule; ValueError (with the reason) when malformed."""
    m = _SPEC.match(text.strip())
    if not m or m.group(1) not in SCHEDULES:
        raise ValueError(f"unknown checkpointing schedule '{text.strip()}'")
    kind, key, arg = m.group(1), m.group(2), m.group(3)
    if kind in ("store-all", "recompute"):
        if arg is not None:
            raise ValueError(f"schedule '{kind}' takes no argument")
        return Schedule(kind)
    if arg is None:
        raise ValueError(f"schedule '{kind}' needs a number, as in {kind}(10)")
    if key is not None and key not in _ARG_NAMES[kind]:
        raise ValueError(f"schedule '{kind}' has no parameter '{key}' (it takes {_ARG_NAMES[kind][0]}=N)")
    if not arg.isdigit() or int(arg) < 1:
        raise ValueError(f"the argument of '{kind}' must be a positive integer, not '{arg}'")
    return Schedule(kind, int(arg))


def set_loop_schedule(op: Op, schedule: Schedule, where: SourceLoc) -> None:
    op.attrs["checkpoint"] = str(schedule)
    op.attrs["checkpoint_at"] = [where.line, where.col, where.end_col]


def loop_schedule(op: Op) -> Optional[tuple[Schedule, Optional[SourceLoc]]]:
    """The schedule annotated on loop ``op``, and where it is written; None when there is none."""
    text = op.attrs.get("checkpoint")
    if text is None:
        return None
    at = op.attrs.get("checkpoint_at")
    where = None
    if at is not None and op.loc is not None:
        line, col, end_col = at
        where = SourceLoc(op.loc.file, line, col, line, end_col)
    return parse_schedule(text), where
