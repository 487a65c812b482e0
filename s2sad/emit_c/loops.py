"""C's counted loops, OpenMP's parallel ones among them.

``for (long i = n - 1; i >= 0; i--)``, with bounds C would re-evaluate every iteration saved
first when the body changes what they read; a counter the source left unnamed is ``it``. A loop
the input marked ``#pragma omp parallel for`` keeps its pragma (``parallel``): what it carries
is a reduction or the last iteration's value, its accumulations that other iterations may meet
are atomic (``_threads_share``, as ``opt/accum_modes`` stamped them), and it may push no tape.
"""

from __future__ import annotations

import itertools

from ..analysis.accumulation import ATOMIC, accumulation
from ..diagnostics import error
from ..emit.expr import literal_value
from ..emit.names import sanitize
from ..emit.stmt import For, Stmt, reads_memory, stmt_names
from ..ssa.attrs import ACCUMULATE
from ..ssa.build import known_sign
from ..ssa.ir import Block, Function, Op, Value
from ..ssa.ops import view_base
from ..ssa.types import Type
from .cexpr import ctype
from .helpers import MATH_H
from .names import CNamer
from .parallel import Pragma, is_parallel, only_summed


class CLoops:
    """``for`` loops and their OpenMP pragmas for ``CFunctionEmitter``.

    Needs from the host: the attributes below; ``expr``, ``_signed_operand``
    (``integers.CIntegers``), and ``StatementBuilder``'s ``copies``, ``_region`` and
    ``_bounds_first``."""

    fn: Function
    namer: CNamer
    var: dict[Value, str]
    types: dict[str, str]
    atomic: bool
    loop_names: list[str]  # of the loops being built, outermost first
    counters: set[str]  # names made for loop counters the source left unnamed
    parallel: list[Op]  # the OpenMP loops being built, outermost first

    def _for(self, op: Op) -> list[Stmt]:
        body = op.regions[0]
        lb, ub, step, *inits = op.operands
        iv = body.args[0]
        name = self.var.get(iv, "_")
        if name == "_":
            name = self._counter_name(iv.name_hint)
            self.var[iv] = name
        elif any(self.var.get(v) == name for v in _defined_inside(body) if v is not iv):
            # Another variable of that name is assigned in the body: in C that would move the loop.
            name = self.namer.fresh(name)
            self.var[iv] = name
        self.types[name] = ctype(iv.type)
        pre = self.copies(list(zip(body.args[1:], inits)))
        self.loop_names.append(name)
        if is_parallel(op):
            self.parallel.append(op)
        stmts = self._region(body)
        if is_parallel(op):
            self.parallel.pop()
        self.loop_names.pop()
        written_body = stmt_names(stmts)[1]
        bounds = [self.expr(lb), self._signed_operand(ub), self.expr(step)]  # ub: compared with the counter

        def unstable(k: int, names: list[str]) -> bool:
            # A bound that reads a variable of the counter's name (a value out-of-SSA gave the same
            # name, dead once the loop starts) would read C's new counter instead: computed first.
            # C evaluates the end and a step that is not a literal every iteration: one that the
            # body changes (a variable it assigns, memory) is computed first too.
            every_iteration = k > 0 and not (k == 2 and literal_value(bounds[k]) is not None)
            return name in names or (every_iteration and (any(n in written_body for n in names)
                                                          or reads_memory(bounds[k], MATH_H)))

        early = self._bounds_first(name, iv.type, bounds, pre, unstable)
        loop = For(name, bounds, stmts or [], sign=known_sign(step))
        if is_parallel(op):
            carried = [(a, y) for a, y in zip(body.args[1:], body.terminator.operands) if y is not a]
            # A value no iteration reads is the last iteration's (lastprivate); the others are sums.
            last = [self.var[a] for a, _ in carried if a in self.var and not a.uses]
            reduction = [self.var[a] for a, _ in carried if a in self.var and a.uses]
            for a, _ in carried:  # each thread sums into its own copy, from zero: the copy is only added to
                if not only_summed(a):
                    raise error(f"C output: the parallel loop carries '{self.var.get(a, '?')}', which is not a sum",
                                op.loc, hint="remove '#pragma omp parallel for' from this loop")
            if op.attrs.get("collapsed"):
                return early + pre + [loop]  # one of the loops under its outer loop's collapse(n)
            pragma = Pragma("", loop, reduction, op.attrs.get("schedule"), last, op.attrs.get("collapse", 1))
            return early + pre + [pragma, loop]
        return early + pre + [loop]

    def _bound_temp(self, k: int, counter: str, t: Type) -> str:
        temp = self.namer.fresh(f"{counter}_{('start', 'end', 'step')[k]}")
        self.types[temp] = ctype(t)
        return temp

    def _counter_name(self, hint: str = "") -> str:
        """A name for a counter the body does not read (C's ``for`` needs one all the same): the
        source's (``step``) when free, else ``it``; ``it2`` inside a loop that already uses ``it``."""
        hint = sanitize(hint)
        names = ([hint] if hint and hint not in ("_", "it") else []) + ["it"]
        for cand in itertools.chain(names, (f"it{k}" for k in itertools.count(2))):  # one is free: names are finite
            if cand not in self.loop_names and (cand in self.counters or self.namer.is_free(cand)):
                if cand not in self.counters:
                    self.namer.claim_fixed(cand)
                    self.counters.add(cand)
                return cand
        raise AssertionError("unreachable")

    def _threads_share(self, store: Op) -> bool:
        """Whether other threads may update the element ``store`` writes at once: an update
        under the user's ``#pragma omp atomic``, an accumulation in a parallel loop that other
        iterations may meet (``opt/accum_modes`` stamped it), or, in an atomic copy, one into an
        array the function is passed."""
        if store.attrs.get("atomic") or store.attrs.get(ACCUMULATE) == ATOMIC:
            return True
        # (accumulation: an accum op, or the store of the user's x[i] += y)
        return self.atomic and accumulation(store) is not None and view_base(store.operands[0]) in self.fn.params


def _defined_inside(block: Block) -> list[Value]:
    out = list(block.args)
    for op in block.walk():
        out += op.results
        for r in op.regions:
            out += r.args
    return out
