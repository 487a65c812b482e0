"""The pass registry and pipelines: which passes exist and in what order they run.

A pass is a function ``(module, context) -> None`` that rewrites the module in
place and leaves verified IR behind. Passes are registered here by name so
that users and tests can run any subset from a pipeline string
(``"inline,cse,licm,dce"``), and the optimization levels are pipelines too:

* ``-O0``: nothing (the IR as the front end wrote it, plus what is part of producing
  the adjoint, not an optimization: DCE of it, and each statement's additions into one
  adjoint element summed before they are added);
* ``-O1``: local cleanups that never change a loop's shape: folding, array
  simplification (``arrays``), CSE, DCE;
* ``-O2`` (default): inlining of small functions and hoisting of loop-invariant
  work first, which is what makes gradients asymptotically faster, and counted
  ``while`` loops turned into ``for`` loops (``counted``).

The same kind of pipeline runs on the primal before differentiation and on the
gradient after it (``ADJOINT_PIPELINES``), and one prepares the gradient for the output
language (``TARGET_PIPELINES``).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Optional

from ..analysis.effects import PassContext, record_source_writes
from ..ssa.ir import Module
from . import (accum_modes, array_simplify, counted, cse, factor_sums, fold, forward_order, gather, inline,
               inline_loops, licm, local_sums, lower_arrays, merge_accums, masked_where, merge_clears, native_indices,
               negative_indices, sink_stores)
from ..progress import stage
from .dce import dce_module


Pass = Callable[[Module, PassContext], None]

PASSES: dict[str, Pass] = {}


def register(name: str) -> Callable[[Pass], Pass]:
    def add(fn: Pass) -> Pass:
        PASSES[name] = fn
        return fn

    return add


register("dce")(lambda module, ctx: dce_module(module, ctx.called_from_outside))
register("counted")(counted.run)
register("cse")(cse.run)
register("fold")(fold.run)
register("gather")(gather.run)
register("forward")(forward_order.run)
register("inline")(inline.run)
register("inline-loops")(inline_loops.run)
register("licm")(licm.run)
register("arrays")(array_simplify.run)
register("lower-arrays")(lower_arrays.run)
register("merge-accums")(merge_accums.run)
register("local-sums")(local_sums.run)
register("factor-sums")(factor_sums.run)
register("merge-clears")(merge_clears.run)
register("native-indices")(native_indices.run)
register("masked-where")(masked_where.run)
register("negative-indices")(negative_indices.run)
register("sink-stores")(sink_stores.run)
register("accum-modes")(accum_modes.run)
register("accum-modes-gpu")(accum_modes.run_gpu)


# Before differentiation, by optimization level; each name must be in PASSES.
PRIMAL_PIPELINES: dict[int, str] = {
    0: "",
    1: "fold,arrays,cse,dce",
    # Inline small helpers first so their bodies can be folded and hoisted too;
    # counted while loops become for loops (no counter taped); CSE again after
    # LICM merges what hoisting brought side by side; then the helpers with loops still called
    # in a loop whose gradients would re-run them are inlined (inline_loops), and what they
    # brought is folded, merged and hoisted in turn.
    2: "inline,fold,arrays,counted,cse,licm,cse,inline-loops,fold,arrays,cse,licm,cse,dce",
}
# After differentiation: a statement's additions into one adjoint element summed before they
# are added (merge_accums: numerically, part of producing the adjoint), and dead adjoints,
# unused caches and copies always go; at -O1 and up, repeated loads and arithmetic of the
# adjoint are merged and folded, and an adjoint cleared and then added to becomes one store;
# at -O2, a stencil's adjoint is made in gather form and independent reversed loops run forward
# (after the merges, which leave each addition whole), and what a loop adds into one element in
# every iteration is summed in a local (local_sums), and sums whose terms share factors no iteration
# changes carry the rest and take the factors once, after the loop (factor_sums).
ADJOINT_PIPELINES: dict[int, str] = {
    0: "merge-accums,dce",
    1: "fold,arrays,cse,merge-accums,merge-clears,dce",
    2: "fold,arrays,cse,licm,cse,merge-accums,merge-clears,gather,forward,local-sums,factor-sums,dce",
}
# Before a target's emitter, on the gradient and what it calls, at every level: C and CUDA
# have no array values, so whole-array ops become element loops; on a GPU, an adjoint's clearing
# store waits below the loads after it (sink_stores says why); NumPy and Numba count a negative
# index from the end themselves (native_indices: also before differentiation, pipeline.py); C
# checks one into an array whose length it does not know instead (negative_indices). Last, each
# accumulation where threads or iterations run at once is stamped with how the output adds it
# (accum_modes: the emitters print the mode).
TARGET_PIPELINES: dict[str, str] = {"py": "native-indices,accum-modes", "numba": "native-indices,accum-modes",
                                    "c": "lower-arrays,negative-indices,accum-modes",
                                    "cuda": "lower-arrays,sink-stores,accum-modes-gpu"}


class PipelineError(ValueError):
    """A pipeline string names a pass that does not exist."""


def parse_pipeline(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in PASSES]
    if unknown:
        raise PipelineError(
            f"unknown pass{'es' if len(unknown) > 1 else ''} {', '.join(unknown)} "
            f"(available: {', '.join(sorted(PASSES))})"
        )
    return names


def run_pipeline(module: Module, pipeline: str, ctx: PassContext = PassContext(), label: str = "") -> None:
    """Run the passes named in ``pipeline`` (comma-separated), in order.

    First, what the gradient's signature needs to know of the source (which array parameters
    it writes) is recorded on each function that has no record yet: no pass can change it.
    """
    names = parse_pipeline(pipeline)
    record_source_writes(module)
    seen = _observer.get()
    if seen is not None and names:
        seen(Ran("", 0, names, label), module)  # the module before the pipeline
    for k, name in enumerate(names):
        stage(f"optimizing: pass {name}")
        PASSES[name](module, ctx)
        if seen is not None:
            seen(Ran(name, k + 1, names, label), module)


class Ran:
    """One pass as it ran: its name, its place (from 1) in the pipeline ``names``, and what
    the pipeline is for (``label``: "primal", "adjoint", "target"); place 0: the pipeline is
    about to begin."""

    def __init__(self, name: str, place: int, names: list[str], label: str):
        self.name, self.place, self.names, self.label = name, place, names, label


Observer = Callable[[Ran, Module], None]
_observer: ContextVar[Optional[Observer]] = ContextVar("pass_observer", default=None)


@contextmanager
def observing(observer: Observer) -> Iterator[None]:
    """Within it, ``observer`` sees the module after every pass that runs (``s2sad ir --print-after``)."""
    token = _observer.set(observer)
    try:
        yield
    finally:
        _observer.reset(token)
