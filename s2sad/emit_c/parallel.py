"""OpenMP in C output: parallel loops stay parallel, and their adjoints too.

A ``for`` op with ``parallel = "omp"`` (the front end's ``#pragma omp parallel
for``, kept by the forward sweep and given to the reversed loop by the reverse
transform) prints as that pragma before the loop, with the clauses the loop
needs, worked out from the code rather than copied:

* ``reduction(+: ...)``: the variables the loop carries from one iteration to
  the next. In the primal these are the sums the user declared; in a reversed
  loop they are the adjoints of values every iteration reads (``d_a`` of a
  scalar ``a``), which reverse mode turns into sums. A carried variable that is
  not a sum cannot be parallel and is an error;
* ``private(...)``: variables the body assigns that are declared outside it
  (out-of-SSA may give a body value the name of an outer one that is dead by
  then); the loop's own variable is private by OpenMP's rules; ``firstprivate``
  for those the body may read before assigning (they start from their declared
  value, as in a serial run);
* ``schedule(...)`` as the user wrote it.

Inside a parallel loop, an adjoint accumulation ``d[idx] += g`` is a plain
``+=`` when every access to that array in the loop uses one index, the loop
variable (``i``, ``i + k``, ``c * i`` with ``k``, ``c`` the same in every
iteration); otherwise (a stencil's ``d_x[i - 1]`` meets the next iteration's
``d_x[i]``, a gather's ``d_x[idx[i]]`` may repeat) it gets ``#pragma omp atomic``.
``opt/accum_modes`` decides which, before the emitter runs: the same classification as
CUDA's (``s2sad.analysis.accumulation``), with
the iteration in place of the thread. Iterations that push values on a tape
(a stack: its order is the serial order) cannot run in parallel: that is an
error naming the loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..emit.expr import Expr, Name, Unary, walk
from ..emit.stmt import Comment, For, Stmt, stmt_names
from ..ssa.ir import Op, Value
from ..emit.stmt import child_blocks
from .cstmt import Decl, exposed


@dataclass
class Pragma:
    """``#pragma <text>`` on its own line; for a parallel loop, the loop and its clauses."""

    text: str
    loop: Optional[For] = None
    reduction: list[str] = field(default_factory=list)
    schedule: Optional[str] = None
    lastprivate: list[str] = field(default_factory=list)
    collapse: int = 1


def is_parallel(op: Op) -> bool:
    return op.name == "for" and op.attrs.get("parallel") == "omp"


def only_summed(a: Value) -> bool:
    """Whether a parallel loop's carried ``a`` is only added to and handed on: its uses are
    ``add``, ``yield``, or the start value of an inner loop that only sums into it (a
    reduction whose updates sit in a nested loop, as in a collapsed nest)."""
    for use, k in a.uses:
        if use.name in ("add", "yield"):
            continue
        if use.name == "for" and k >= 3 and only_summed(use.regions[0].args[k - 2]):
            continue
        return False
    return True


__all__ = ["Pragma", "finish", "is_parallel", "only_summed"]


def finish(stmts: list[Stmt]) -> None:
    """Once declarations are placed: each parallel loop's pragma text, with its private list."""
    for k, st in enumerate(list(stmts)):
        if isinstance(st, Pragma) and st.loop is not None:
            # The loop itself (later tidying may have rebuilt st.loop): declarations placed
            # between the pragma and its loop go before the pragma.
            j = stmts.index(st)
            while isinstance(stmts[j + 1], Decl):
                stmts[j], stmts[j + 1] = stmts[j + 1], stmts[j]
                j += 1
            loop = stmts[j + 1]
            assert isinstance(loop, For)
            # A variable whose address a call is passed is written there: a gradient adds the
            # adjoint it returns through the pointer (``grad_g0(b, &d_b_local, ...)``), which
            # must then be the thread's own copy (fuzz seed 9901785: the sum was shared).
            written = stmt_names(loop.body)[1] | _address_passed(loop.body)
            declared = _declared(loop.body)
            st.reduction = [r for r in st.reduction if r in written]  # a sum no update is left for
            # A last value the body does not assign (a copy out-of-SSA placed before the loop) is
            # shared and only read: a lastprivate copy of it would hand out an unset value.
            last = [v for v in st.lastprivate if v in written]
            collapse = _collapse(loop, st.collapse)
            private = sorted(written - declared - set(st.reduction) - set(last) - set(collapse[1:]))
            # A private variable the body may read before it assigns it (a flag an `if` sets and
            # a later test reads only where it was set: fuzz seed 13002891) starts from the value
            # it was declared with, as in a serial run, not unset (gcc: maybe-uninitialized).
            memo: dict = {}
            first = [v for v in private if exposed(loop.body, v, memo)[0]]
            private = [v for v in private if v not in first]
            clauses = ["omp parallel for"]
            if len(collapse) > 1:
                clauses.append(f"collapse({len(collapse)})")
            if st.schedule:
                clauses.append(f"schedule({st.schedule})")
            if st.reduction:
                clauses.append(f"reduction(+: {', '.join(st.reduction)})")
            if last:
                clauses.append(f"lastprivate({', '.join(last)})")
            if private:
                clauses.append(f"private({', '.join(private)})")
            if first:
                clauses.append(f"firstprivate({', '.join(first)})")
            st.text = " ".join(clauses)
        for block in child_blocks(st):
            finish(block)


def _collapse(loop: For, depth: int) -> list[str]:
    """The counters of the loops ``collapse(n)`` may take, outermost first: up to ``depth``
    loops, each alone in the body of the one before (the adjoint's reversed nest may have
    statements between them, then fewer loops collapse) and with bounds that do not read the
    counters of the loops around it (OpenMP collapses rectangular nests)."""
    counters = [loop.target]
    while len(counters) < depth:
        body = [st for st in loop.body if not isinstance(st, Comment)]  # gone before the compiler sees it
        if len(body) != 1 or not isinstance(body[0], For):
            break
        inner = body[0]
        reads = {n.id for e in inner.args for n in walk(e) if isinstance(n, Name)}
        if reads & set(counters):
            break
        counters.append(inner.target)
        loop = inner
    return counters


def _address_passed(stmts: list[Stmt]) -> set[str]:
    """The variables whose address the statements pass (``&d_a_local``)."""
    out: set[str] = set()
    for st in stmts:
        exprs = [getattr(st, "value", None), getattr(st, "cond", None), *getattr(st, "values", ()),
                 *getattr(st, "args", ())]
        for e in exprs:
            if isinstance(e, Expr):
                out.update(n.operand.id for n in walk(e)
                           if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Name))
        for block in child_blocks(st):
            out |= _address_passed(block)
    return out


def _declared(stmts: list[Stmt]) -> set[str]:
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, Decl):
            out.add(st.name)
        elif isinstance(st, For):
            out.add(st.target)  # C output declares a loop's variable in its header
        elif hasattr(st, "name") and hasattr(st, "size"):  # ArrayDecl
            out.add(st.name)  # type: ignore[attr-defined]
        for block in child_blocks(st):
            out |= _declared(block)
    return out


