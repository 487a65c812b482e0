"""OpenMP loop pragmas, as the C front end reads them.

``#pragma omp parallel for [clauses]`` on the line before a ``for`` (blank lines
between allowed) makes that loop parallel: its ``for`` op carries
``parallel = "omp"`` (and ``schedule`` when given), which the forward sweep
keeps and the reverse transform gives the reversed loop; the C emitter then
writes the pragma back, with the clauses the adjoint loop needs (see
``s2sad.emit_c.parallel``).

Of the clauses, ``reduction(+: names)`` is checked against the loop's carried
variables (each must be a listed sum), ``schedule(...)`` is kept, and
``private``, ``shared``, ``firstprivate``, ``default`` and ``num_threads`` are
accepted and recomputed for the output. Anything else (other OpenMP
constructs, other reductions, ``collapse``, ``ordered``, ``lastprivate``...) is
a located error, as is a pragma on a loop that is not a counted ``for``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

_CLAUSE = re.compile(r"(\w+)\s*(?:\(([^()]*)\))?")
_IGNORED = ("private", "shared", "firstprivate", "default", "num_threads")


@dataclass
class OmpLoop:
    """What a ``#pragma omp parallel for`` says."""

    reduction: list[str] = field(default_factory=list)
    schedule: Optional[str] = None


class OmpProblem(Exception):
    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint


def pragma_before(pragmas: dict[int, str], lines: list[str], line: int) -> Optional[tuple[int, str]]:
    """The pragma that applies to a statement on ``line``: the one just above it, if any."""
    k = line - 1
    while k >= 1 and k not in pragmas and not lines[k - 1].strip():
        k -= 1
    if k in pragmas:
        return k, pragmas[k]
    return None


def parse_omp(text: str) -> Optional[OmpLoop]:
    """``text`` (after ``#pragma``) as a parallel loop; None when it is not an OpenMP pragma."""
    words = text.split()
    if not words or words[0] != "omp":
        return None
    rest = text.split(None, 1)[1] if len(words) > 1 else ""
    m = re.match(r"parallel\s+for\b", rest)
    if m is None:
        raise OmpProblem(f"'#pragma omp {rest.strip()}' is not supported",
                         "s2sad reads '#pragma omp parallel for' on a counted for loop")
    loop = OmpLoop()
    clauses = rest[m.end():]
    pos = 0
    for c in _CLAUSE.finditer(clauses):
        if clauses[pos:c.start()].strip(" ,"):
            raise OmpProblem(f"cannot read the OpenMP clauses '{clauses.strip()}'")
        pos = c.end()
        name, arg = c.group(1), c.group(2)
        if name == "reduction":
            op, _, names = (arg or "").partition(":")
            if op.strip() != "+":
                raise OmpProblem(f"reduction({arg}) is not supported", "only reduction(+: ...) is")
            loop.reduction += [n.strip() for n in names.split(",") if n.strip()]
        elif name == "schedule":
            loop.schedule = (arg or "").strip()
        elif name not in _IGNORED:
            raise OmpProblem(f"the OpenMP clause '{name}' is not supported",
                             "s2sad keeps reduction(+: ...) and schedule(...), and works out the rest")
    if clauses[pos:].strip(" ,"):
        raise OmpProblem(f"cannot read the OpenMP clauses '{clauses.strip()}'")
    return loop
