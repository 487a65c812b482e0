"""Tape bytes of the loop-kernel suite: what each gradient allocates to cache values, what it
stores there, and what its reverse sweep reads back.

Issue 19's target: a store-all gradient allocates no more tape than the values its reverse sweep
actually reads. Each kernel of bench/c/kernels is differentiated as ``s2sad grad`` does it (-O2,
C output's module), and its gradient function is run by the IR's reference interpreter
(``s2sad.ssa.interp``) on the kernel's inputs with every extent times ``--size``. The
interpreter counts, for every cache the memory report lists (``adjoint.report``: the tapes and
the array copies the forward sweep makes):

- allocated: the bytes its allocation asks for (a stack's capacity, an indexed cache's length,
  a copy's length);
- stored: the bytes pushed, or the distinct elements of an indexed cache written;
- read: the bytes the reverse sweep reads back (pops whose value is used, distinct elements
  loaded);
- distinct: the bytes of the distinct floating-point values stored, over all the caches of the
  gradient (values equal bit for bit count once: with random inputs, those are the same value
  taped twice), and of every integer and flag stored.

A stack that grows (its size unknown before its loop) is counted as C output grows it: from
nothing, to twice its capacity plus one when full. The ratio allocated / read is at most 1.00
where the target holds; stored above distinct shows values taped more than once. Interpreted, not compiled:
the counts are the C output's (its allocations are the IR's), and sizes stay small (default
``--size 3``). Usage::

    .venv/bin/python bench/tape_bytes.py [--size 3] [--only durbin,lu] [--tapes]

``--tapes`` prints a row per cache too. A kernel s2sad refuses prints its diagnostic and the
script exits with status 1.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from c_kernels import KERNELS, kernel_names, scaled_inputs  # noqa: E402
from s2sad import pipeline  # noqa: E402
from s2sad.adjoint.report import MemoryReport, elem_bytes  # noqa: E402
from s2sad.diagnostics import DiagnosticError  # noqa: E402
from s2sad.ssa.interp import Interpreter  # noqa: E402
from s2sad.ssa.ir import Op  # noqa: E402


@dataclass
class Tally:
    """The counts of one cache (a tape, an indexed cache or a copy)."""

    name: str
    elem: int  # bytes per element
    allocated: int = 0
    pushed: int = 0
    popped: int = 0
    stored: set = field(default_factory=set)  # (allocation, index) of elements written
    loaded: set = field(default_factory=set)  # ... and read
    keep: list = field(default_factory=list)  # what it made, alive, so that ids stay unique
    values: set = field(default_factory=set)  # each floating-point value stored, as its bytes
    is_float: bool = True

    @property
    def stored_bytes(self) -> int:
        return self.pushed + self.elem * len(self.stored)

    @property
    def own_distinct_bytes(self) -> int:
        """The bytes of the values it holds that no other value of it equals (floats; every counter
        and flag counts)."""
        return sum(len(v) for v in self.values) if self.is_float else self.stored_bytes

    @property
    def read_bytes(self) -> int:
        return self.popped + self.elem * len(self.loaded)


class CountingInterpreter(Interpreter):
    """The reference interpreter, counting what the caches in ``caches`` hold and give back."""

    def __init__(self, module: Any, caches: dict[Op, Tally]):
        super().__init__(module)
        self.caches = caches
        self.made: dict[int, Tally] = {}  # id of a tape or array a cache op made -> its tally
        self.growing: dict[int, list[int]] = {}  # id of a stack that grows -> [top, capacity]

    def _op(self, op: Op, env: dict) -> list:
        out = super()._op(op, env)
        tally = self.caches.get(op)
        if tally is not None:
            made = out[0]
            tally.keep.append(made)
            self.made[id(made)] = tally
            if op.name == "tape.new" and op.attrs.get("grow"):
                self.growing[id(made)] = [0, 0]  # top, capacity: it starts with no memory
            else:
                count = int(env[op.operands[0]]) if op.name == "tape.new" else made.size
                tally.allocated += count * tally.elem
            if op.name == "copy":  # a copy stores every element it holds
                tally.stored |= {(id(made), k) for k in range(made.size)}
                tally.values |= {x.tobytes() for x in made.ravel()} if tally.is_float else set()
        elif op.name in ("tape.push", "tape.pop", "store", "load"):
            tally = self.made.get(id(env[op.operands[0]]))
            if tally is None:
                return out
            if op.name in ("tape.push", "store") and tally.is_float:
                tally.values.add(np.asarray(env[op.operands[-1]]).tobytes())
            if op.name in ("store", "load"):
                at = (id(env[op.operands[0]]), tuple(int(env[v]) for v in op.operands[1:1 + op.operands[0].type.rank]))
                (tally.stored if op.name == "store" else tally.loaded).add(at)
                return out
            stack = self.growing.get(id(env[op.operands[0]]))
            if op.name == "tape.push":
                tally.pushed += tally.elem
                if stack is not None and stack[0] == stack[1]:  # full: grown as C output grows it
                    tally.allocated += (stack[1] + 1) * tally.elem
                    stack[1] = 2 * stack[1] + 1
            elif op.result.uses:  # a pop whose value the reverse sweep reads
                tally.popped += tally.elem
            if stack is not None:
                stack[0] += 1 if op.name == "tape.push" else -1
        return out


def caches_of(reports: list[MemoryReport]) -> dict[Op, Tally]:
    """The ops that make caches, each with an empty tally (those the cleanups kept)."""
    out: dict[Op, Tally] = {}
    for report in reports:
        for t in report.tapes:
            if t.op.parent is not None:
                out[t.op] = Tally(t.tape, elem_bytes(t.elem), is_float=t.elem.is_float)
        for c in report.copies:
            if c.op.parent is not None:
                out[c.op] = Tally(c.name, elem_bytes(c.elem), is_float=c.elem.is_float)
    return out


def arguments(fn: Any, spec: dict, values: list) -> list:
    """The gradient's arguments by parameter name: the kernel's values (arrays copied), a seed of
    ones for each shadow, 1.0 for the seed of a returned value."""
    by_name = {p["name"]: v for p, v in zip(spec["params"], values)}
    out = []
    for p in fn.params:
        name = p.name_hint
        if name in by_name:
            v = by_name[name]
            out.append(np.copy(v) if isinstance(v, np.ndarray) else v)
        elif name.startswith("d_") and name[2:] in by_name:
            out.append(np.ones_like(by_name[name[2:]]))
        elif name == "d_return":
            out.append(1.0)
        else:
            raise ValueError(f"tape_bytes: no value for the gradient's parameter '{name}'")
    return out


def measure(name: str, factor: int) -> tuple[dict, list[Tally]]:
    folder = KERNELS / name
    _, spec, values = scaled_inputs(folder, factor, np.random.default_rng(0))
    source = (folder / "input.c").read_text()
    reports: list[MemoryReport] = []
    module = pipeline.gradient_module(source, str(folder / "input.c"), spec["func"], spec["wrt"],
                                      pipeline.Options(level=2), c_output=True, memory=reports)
    caches = caches_of(reports)
    grad = module.functions[f"grad_{spec['func']}"]
    CountingInterpreter(module, caches).run(grad, arguments(grad, spec, values))
    sizes = {p["name"]: v for p, v in zip(spec["params"], values) if isinstance(v, int)}
    return sizes, list(caches.values())


def distinct_bytes(tallies: list[Tally]) -> int:
    """The bytes of the distinct floating-point values over all ``tallies``, plus every counter and
    flag stored."""
    floats = set().union(*(t.values for t in tallies if t.is_float))
    return sum(len(v) for v in floats) + sum(t.stored_bytes for t in tallies if not t.is_float)


def ratio(a: int, b: int) -> str:
    return "-" if b == 0 else f"{a / b:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=3, help="factor on every extent (default 3)")
    ap.add_argument("--only", default="", help="comma-separated kernel names")
    ap.add_argument("--tapes", action="store_true", help="a row per cache too")
    args = ap.parse_args(argv)
    names = kernel_names(args.only, "tape_bytes")
    if names is None:
        return 2
    print("| kernel | sizes | caches | allocated (B) | stored (B) | distinct (B) | read (B) | allocated / read |\n"
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    failed = False
    totals = [0, 0, 0, 0]
    for name in names:
        try:
            sizes, tallies = measure(name, args.size)
        except DiagnosticError as e:
            print(f"| {name} | refused: {e} | | | | | | |")
            failed = True
            continue
        row = [sum(t.allocated for t in tallies), sum(t.stored_bytes for t in tallies),
               distinct_bytes(tallies), sum(t.read_bytes for t in tallies)]
        totals = [a + b for a, b in zip(totals, row)]
        shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
        print(f"| {name} | {shown} | {len(tallies)} | " + " | ".join(f"{x:,}" for x in row)
              + f" | {ratio(row[0], row[3])} |", flush=True)
        if args.tapes:
            for t in tallies:
                print(f"| {t.name} | | | {t.allocated:,} | {t.stored_bytes:,} | {t.own_distinct_bytes:,} | "
                      f"{t.read_bytes:,} | {ratio(t.allocated, t.read_bytes)} |")
    print("| all | | | " + " | ".join(f"{x:,}" for x in totals) + f" | {ratio(totals[0], totals[3])} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
