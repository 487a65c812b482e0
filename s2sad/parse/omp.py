"""OpenMP pragmas, as the C front end reads them.

Which statement a pragma applies to is ``c_pragmas``' business (the next statement in the
syntax); this module reads what the pragma says. The C front end (``c_omp``) then lowers
the construct as the serial program it is equivalent to, with its worksharing loops made
parallel, or refuses it at its line.

* ``#pragma omp parallel for [clauses]`` on a counted ``for``: the loop's ``for`` op carries
  ``parallel = "omp"`` (and ``schedule``, ``collapse`` when given), which the forward sweep
  keeps and the reverse transform gives the reversed loop; the C emitter then writes the
  pragma back, with the clauses the adjoint loop needs (``s2sad.emit_c.parallel``).
* ``#pragma omp parallel [clauses]`` over a statement: each thread runs the region. Its
  ``#pragma omp for [clauses]`` loops are shared out among the threads, as a ``parallel for``
  is; the rest of the region runs once per thread, which the serial program matches when
  that code only computes the thread's own variables (checked by the front end).
* Clauses: ``reduction(+: names)`` (checked against the loop's carried variables: each must
  be a listed sum), ``private``, ``firstprivate``, ``lastprivate`` (each a copy of the
  variable per iteration; a lastprivate one hands the last iteration's value out),
  ``schedule(...)``, ``collapse(n)``, ``nowait`` (on ``omp for``: checked to be safe);
  ``shared``, ``default``, ``num_threads``, ``if`` and ``proc_bind`` change nothing a
  gradient depends on. Other clauses and reductions are located errors.
* ``#pragma omp atomic`` (or ``atomic update``) on an update of a memory element by addition
  or subtraction (``y[k] += e``, ``y[k] -= e``, ``y[k] = y[k] + e``, ``y[k]++``): its store is
  marked ``atomic``, the forward sweep prints the pragma back, and the reverse transform
  gives it an adjoint that only reads ``d_y[k]`` (see ``s2sad.adjoint.reverse``), which
  iterations sharing the element may run at once. ``#pragma omp critical`` around such
  updates is read the same way, and around ``s += e`` on a variable of the enclosing
  parallel loop as a sum of the loop (a reduction).

Every other OpenMP pragma changes what the code means (``single``, ``master``, ``sections``,
``simd``, ``task``... order or split the work), so each one inside a function s2sad lowers
is a located error, never dropped (``unconsumed_problem``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

_CLAUSE = re.compile(r"(\w+)\s*(?:\(([^()]*)\))?")

# Clauses that change nothing a gradient depends on: recomputed for the output, or dropped.
_NEUTRAL = ("shared", "default", "num_threads", "if", "proc_bind")
_LISTS = ("private", "firstprivate", "lastprivate")
_LOOP_CLAUSES = ("reduction", "schedule", "collapse", *_LISTS)
ALLOWED = {
    "parallel for": (*_LOOP_CLAUSES, *_NEUTRAL),
    "for": (*_LOOP_CLAUSES, "nowait"),
    "parallel": ("reduction", "private", "firstprivate", *_NEUTRAL),
}


@dataclass
class OmpClauses:
    """What a ``#pragma omp parallel for``, ``omp for`` or ``omp parallel`` says."""

    directive: str
    reduction: list[str] = field(default_factory=list)
    schedule: Optional[str] = None
    private: list[str] = field(default_factory=list)
    firstprivate: list[str] = field(default_factory=list)
    lastprivate: list[str] = field(default_factory=list)
    collapse: int = 1
    nowait: bool = False

    @property
    def spelled(self) -> str:
        return f"'#pragma omp {self.directive}'"


class OmpProblem(Exception):
    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint


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
    """Why an OpenMP pragma that no statement took is refused."""
    directive = omp_directive(text) or ""
    spelled = f"'#pragma {text.strip()}'"
    if directive == "parallel":
        return OmpProblem(f"{spelled} must be followed by a statement, the parallel region",
                          "put the region's statements in braces right below the pragma")
    if directive in ("parallel for", "for"):
        return OmpProblem(f"{spelled} must be followed by a counted for loop",
                          "put the pragma on the line right above the for loop")
    if directive in ("atomic", "critical"):
        return OmpProblem(f"{spelled} must be followed by an update statement",
                          f"s2sad reads '#pragma omp {directive}' on 'y[k] += e;' or 'y[k] -= e;' right below it")
    return OmpProblem(f"{spelled} is not supported: it changes how the code runs, and s2sad does not "
                      "differentiate it",
                      "s2sad reads '#pragma omp parallel for', '#pragma omp parallel' with '#pragma omp for' "
                      "loops, and '#pragma omp atomic' or 'critical' on updates 'y[k] += e'")


def parse_omp(text: str) -> Optional[OmpClauses]:
    """``text`` (after ``#pragma``) as a ``parallel for``, ``for`` or ``parallel`` with its
    clauses; None when it is not an OpenMP pragma; an OmpProblem for another directive or a
    clause s2sad does not read."""
    directive = omp_directive(text)
    if directive is None:
        return None
    m = re.match(r"\s*omp\s+" + r"\s+".join(map(re.escape, directive.split())) + r"\b", text)
    if directive not in ALLOWED or m is None:
        raise OmpProblem(f"'#pragma {text.strip()}' is not supported",
                         "s2sad reads '#pragma omp parallel for' on a counted for loop, and '#pragma omp for' "
                         "loops inside '#pragma omp parallel'")
    omp = OmpClauses(directive)
    clauses = text[m.end():]
    pos = 0
    for c in _CLAUSE.finditer(clauses):
        if clauses[pos:c.start()].strip(" ,"):
            raise OmpProblem(f"cannot read the OpenMP clauses '{clauses.strip()}'")
        pos = c.end()
        _clause(omp, c.group(1), (c.group(2) or "").strip())
    if clauses[pos:].strip(" ,"):
        raise OmpProblem(f"cannot read the OpenMP clauses '{clauses.strip()}'")
    return omp


def _clause(omp: OmpClauses, name: str, arg: str) -> None:
    if name not in ALLOWED[omp.directive]:
        raise OmpProblem(f"the OpenMP clause '{name}' is not supported on {omp.spelled}",
                         f"s2sad reads {', '.join(c for c in ALLOWED[omp.directive] if c not in _NEUTRAL)} there")
    if name == "reduction":
        op, _, names = arg.partition(":")
        if op.strip() != "+":
            raise OmpProblem(f"reduction({arg}) is not supported",
                             "only reduction(+: ...) is: the adjoint of a product, max or min reduction needs "
                             "each thread's partial result, which OpenMP does not keep")
        omp.reduction += _names(names)
    elif name == "schedule":
        omp.schedule = _schedule(arg)
    elif name == "collapse":
        if not arg.isdigit() or int(arg) < 1:
            raise OmpProblem(f"collapse({arg}) is not supported", "write collapse(n) with n a positive integer")
        omp.collapse = int(arg)
    elif name == "nowait":
        omp.nowait = True
    elif name in _LISTS:
        if ":" in arg:
            raise OmpProblem(f"{name}({arg}) is not supported", f"list the variables: {name}(a, b)")
        getattr(omp, name).extend(_names(arg))


# OpenMP's loop schedule kinds and modifiers (OpenMP 5.2, "schedule Clause"): the clause is copied
# into the reverse loop's pragma, so one a compiler would refuse is refused here, located.
_SCHEDULE_KINDS = ("static", "dynamic", "guided", "auto", "runtime")
_SCHEDULE_MODIFIERS = ("monotonic", "nonmonotonic", "simd")
_SCHEDULE = re.compile(r"^\s*(?:(\w+)\s*(?:,\s*(\w+)\s*)?:\s*)?(\w+)\s*(?:,\s*(.+?)\s*)?$")


def _schedule(arg: str) -> str:
    m = _SCHEDULE.match(arg)
    modifiers = [x for x in (m.group(1), m.group(2)) if x] if m else []
    if m is None or m.group(3) not in _SCHEDULE_KINDS or any(x not in _SCHEDULE_MODIFIERS for x in modifiers) \
            or (m.group(4) is not None and m.group(3) in ("auto", "runtime")):
        raise OmpProblem(f"schedule({arg}) is not an OpenMP schedule",
                         f"write schedule(kind) or schedule(kind, chunk), kind one of {', '.join(_SCHEDULE_KINDS)}")
    return arg


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]
