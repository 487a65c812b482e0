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

``#pragma omp atomic`` (or ``atomic update``) on the statement below it is kept
when that statement is an update of a memory element by addition or subtraction
(``y[k] += e``, ``y[k] -= e``, ``y[k] = y[k] + e``, ``y[k]++``): the front end
marks its store ``atomic``, the forward sweep prints the pragma back, and the
reverse transform gives it an adjoint that only reads ``d_y[k]`` (see
``s2sad.adjoint.reverse``), which iterations sharing the element may run at once.

Every other OpenMP pragma changes what the code means (``parallel`` runs its
region once per thread; ``critical``, ``single``, ``master``, ``barrier``,
``sections``, ``for``, ``simd``, ``task``... order or split the work), so each
one inside a function s2sad lowers is a located error, never dropped
(``unconsumed_problem``).
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


def omp_directive(text: str) -> Optional[str]:
    """The directive of an OpenMP pragma (``parallel for``, ``atomic``, ``critical``...), or
    None when ``text`` (after ``#pragma``) is not one."""
    words = text.replace("(", " (").split()
    if not words or words[0] != "omp":
        return None
    if len(words) == 1:
        return ""
    if words[1] in ("parallel", "target", "teams", "distribute", "declare", "end") and len(words) > 2 \
            and words[2] in ("for", "sections", "simd", "loop", "do", "parallel", "teams", "distribute",
                             "workshare", "master", "masked", "reduction", "variant", "mapper", "target"):
        return f"{words[1]} {words[2]}"
    return words[1]


_ATOMIC_CLAUSES = ("update", "seq_cst", "relaxed", "acq_rel", "release", "acquire")


def parse_atomic(text: str) -> None:
    """``text`` as ``omp atomic [update]`` (with a memory order); an OmpProblem otherwise."""
    words = text.replace(",", " ").split()[2:]
    for w in words:
        if w not in _ATOMIC_CLAUSES:
            raise OmpProblem(f"'#pragma omp atomic {w}' is not supported",
                             "s2sad reads '#pragma omp atomic' (an update: y[k] += e) on the statement below it")


def unconsumed_problem(text: str) -> OmpProblem:
    """Why an OpenMP pragma that no loop or update statement took is refused."""
    directive = omp_directive(text) or ""
    spelled = f"'#pragma {text.strip()}'"
    if directive == "parallel":
        return OmpProblem(f"{spelled}: parallel regions are not supported (each thread runs the region, "
                          "which s2sad would run once)",
                          "put '#pragma omp parallel for' on a counted for loop instead")
    if directive == "parallel for":
        return OmpProblem(f"{spelled} must be followed by a counted for loop",
                          "put the pragma on the line right above the for loop")
    if directive == "atomic":
        return OmpProblem(f"{spelled} must be followed by an update statement",
                          "s2sad reads '#pragma omp atomic' on 'y[k] += e;' or 'y[k] -= e;' right below it")
    return OmpProblem(f"{spelled} is not supported: it changes how the code runs, and s2sad does not "
                      "differentiate it",
                      "s2sad reads '#pragma omp parallel for' on counted for loops and '#pragma omp atomic' "
                      "on updates 'y[k] += e'")


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
