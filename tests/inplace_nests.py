"""Random loop nests that update an array in place at affine indices, for the dependence test of
``s2sad/analysis/final_elements.py``: which elements keep the value a load read to the end.

Each program is one to three nested ``for`` loops (counted up or down, bounds from constants,
``n`` and the counter outside) whose statements read and write ``x`` at ``i``, ``i - 1`` or
``i + 1`` of the counters (every index inside the array), with bounded arithmetic, so central
differences stay accurate. Its gradient is checked against them (tests/test_final_elements.py
runs a few; a campaign: ``PYTHONPATH=tests python -m inplace_nests --count 1000 --seed 1``).
"""

from __future__ import annotations

import argparse
import random
import sys

from source_gradients import HEADER, arr, check_source

from s2sad.diagnostics import DiagnosticError

_COUNTERS = ("i", "j", "k")


def program(seed: int, rank: int) -> str:
    """The source of ``f(x, y)``, ``x`` and ``y`` of rank ``rank`` (1 or 2), extents 6 or 5."""
    rng = random.Random(seed)
    shape = "n" if rank == 1 else "n, n"
    lines = [f'def f(x: "f64[{shape}]", y: "f64[{shape}]"):', "    n = x.shape[0]"]
    indent, counters = "    ", []
    for depth in range(rng.choice((1, 2, 2, 3))):
        low = rng.choice(["1", "2", *counters[-1:]])
        high = rng.choice(["n - 1", *[c for o in counters[-1:] for c in (o, f"{o} + 1")]])
        name = _COUNTERS[depth]
        if rng.random() < 0.3:
            lines.append(f"{indent}for {name} in range({high} - 1, {low} - 1, -1):")
        else:
            lines.append(f"{indent}for {name} in range({low}, {high}):")
        indent += "    "
        counters.append(name)
        if depth < 2 and rng.random() < 0.4:
            lines.append(indent + _statement(rng, counters, rank))
    for _ in range(rng.choice((1, 2, 3))):
        lines.append(indent + _statement(rng, counters, rank))
    lines.append("    return np.sum(x * x) + np.sum(x * y)")
    return "\n".join(lines) + "\n"


def _element(rng: random.Random, array: str, counters: list[str], rank: int) -> str:
    def one() -> str:
        c = rng.choice(counters)
        return rng.choice([c, c, f"{c} - 1", f"{c} + 1"])  # counters lie in [1, n - 2]

    return f"{array}[{', '.join(one() for _ in range(rank))}]"


def _statement(rng: random.Random, counters: list[str], rank: int) -> str:
    a, b, c = (_element(rng, "x", counters, rank) for _ in range(3))
    y = _element(rng, "y", counters, rank)
    return rng.choice([
        f"{a} = {b} * {c}", f"{a} = 0.5 * {b} * {c} + 0.3 * {y}", f"{a} = np.sin({b}) * {c}",
        f"{a} = {a} * 0.5 + 0.4 * {b} * {c}", f"{a} -= 0.2 * {b} * {c}", f"{a} = {b} / (1.0 + {c} * {c})",
        f"{a} = np.tanh({a} + {b} * {c})",
    ])


def check(seed: int, rank: int) -> str:
    """Checks the gradient of ``program(seed, rank)``; returns the gradient's text (AssertionError
    if wrong)."""
    shape = (6,) if rank == 1 else (5, 5)
    return check_source(HEADER + program(seed, rank), ["x", "y"], [arr("x", *shape), arr("y", *shape)])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="inplace_nests", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    wrong = taped = copied = 0
    for seed in range(args.seed, args.seed + args.count):
        for rank in (1, 2):
            try:
                text = check(seed, rank)
                taped += "tape" in text
                copied += "_at_loop = " in text  # what an element held before the loop, from a copy
            except DiagnosticError as e:
                print(f"seed {seed}, rank {rank}: refused: {e}", flush=True)
            except AssertionError as e:
                wrong += 1
                print(f"seed {seed}, rank {rank}: MISMATCH\n{program(seed, rank)}{e}", flush=True)
    print(f"{args.count * 2} programs ({taped} with a tape, {copied} with a copy of x), {wrong} mismatches")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
