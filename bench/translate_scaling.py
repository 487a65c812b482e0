"""How translation time grows with the input (issue 16): straight-line functions and files of
many functions, in Python and C, from 100 statements up; the fitted exponent of time ~ size.

A third shape is one statement: a sum of N products on one line (a left-deep tree N deep).

Each point is one ``s2sad grad`` run in this process (the pipeline, as the command line runs
it), timed in process CPU time, the best of ``--repeat``. The inputs are generated here, the
same for every run (a fixed seed): numerical statements of the kind real code has (sums,
products, exp, sin, tanh of the running values), so that every statement is active and
differentiated.

    .venv/bin/python bench/translate_scaling.py [--sizes 100,200,400,800,1600] [--repeat 1] [--languages py,c]
        [--shapes one,many,sum]

The issue's target: an exponent of at most 1.2 from 100 to 100,000 statements.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402
from s2sad.deep_stack import run_deep  # noqa: E402
from s2sad.diagnostics import DiagnosticError  # noqa: E402

PY_STEPS = ("a = a * 0.5 + math.sin(b)", "b = b - 0.25 * a", "a = math.exp(-a * a) + b", "b = math.tanh(a) * b + 1.0")
C_STEPS = ("a = a * 0.5 + sin(b);", "b = b - 0.25 * a;", "a = exp(-a * a) + b;", "b = tanh(a) * b + 1.0;")


def straight_line(lang: str, n: int) -> str:
    """One function of ``n`` statements."""
    rng = random.Random(n)
    if lang == "py":
        body = [f"    {rng.choice(PY_STEPS)}" for _ in range(n)]
        head = ["import math", "", "", "def f(x, y):", "    a = x", "    b = y"]
        return "\n".join([*head, *body, "    return a + b", ""])
    body = [f"    {rng.choice(C_STEPS)}" for _ in range(n)]
    return "\n".join(["#include <math.h>", "", "double f(double x, double y) {", "    double a = x, b = y;", *body,
                      "    return a + b;", "}", ""])


def many_functions(lang: str, n: int) -> str:
    """``n / 10`` helpers of 10 statements each, called in turn by ``f``."""
    rng = random.Random(n)
    count = max(n // 10, 1)
    parts = ["import math", ""] if lang == "py" else ["#include <math.h>", ""]
    for k in range(count):
        if lang == "py":
            body = [f"    {rng.choice(PY_STEPS)}" for _ in range(10)]
            parts += ["", f"def h{k}(a, b):", *body, "    return a + b", ""]
        else:
            body = [f"    {rng.choice(C_STEPS)}" for _ in range(10)]
            parts += [f"static double h{k}(double a, double b) {{", *body, "    return a + b;", "}", ""]
    calls = [f"    s = h{k}(s, x)" if lang == "py" else f"    s = h{k}(s, x);" for k in range(count)]
    if lang == "py":
        parts += ["", "def f(x):", "    s = x", *calls, "    return s", ""]
    else:
        parts += ["double f(double x) {", "    double s = x;", *calls, "    return s;", "}", ""]
    return "\n".join(parts)


def long_sum(lang: str, n: int) -> str:
    """One statement: a sum of ``n`` products on one line, a left-deep tree ``n`` deep."""
    terms = " + ".join(f"x * {1 + k % 7}.0" for k in range(n))
    if lang == "py":
        return f"def f(x, y):\n    return y + {terms}\n"
    return f"double f(double x, double y) {{\n    return y + {terms};\n}}\n"


def seconds(source: str, filename: str, wrt: list[str], target: str, repeat: int) -> Optional[float]:
    """The best time of ``repeat`` translations; None where s2sad refuses the input (a sum too
    deep for Python itself to compile: a located error, as the contract says)."""
    best = math.inf
    for _ in range(repeat):
        start = time.process_time()
        try:
            run_deep(lambda: pipeline.gradient_source(source, filename, "f", wrt, target))  # as the command line
        except DiagnosticError:
            return None
        best = min(best, time.process_time() - start)
    return best


def exponent(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of log(time) against log(size)."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(t, 1e-6)) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,200,400,800,1600")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--languages", default="py,c", help="which front ends to time (py, c)")
    ap.add_argument("--shapes", default="one,many,sum", help="which inputs to time (one function, many functions, "
                    "one long sum)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    shapes = (("one function", straight_line), ("many functions", many_functions), ("one long sum", long_sum))
    shapes = tuple((shape, make) for key, (shape, make) in zip(("one", "many", "sum"), shapes)
                   if key in args.shapes.split(","))
    print(f"{'input':<28}" + "".join(f"{n:>9}" for n in sizes) + f"{'exponent':>10}")
    for lang, suffix, target in (("py", "py", "py"), ("c", "c", "c")):
        if lang not in args.languages.split(","):
            continue
        for shape, make in shapes:
            wrt = ["x"] if make is many_functions else ["x", "y"]
            timed = [(n, seconds(make(lang, n), f"scaling.{suffix}", wrt, target, args.repeat)) for n in sizes]
            row = "".join(f"{t:>8.2f}s" if t is not None else f"{'refused':>9}" for _, t in timed)
            points = [(n, t) for n, t in timed if t is not None]
            slope = f"{exponent(points):>10.2f}" if len(points) > 1 else f"{'-':>10}"  # one size: no slope
            print(f"{lang + ', ' + shape:<28}{row}{slope}", flush=True)


if __name__ == "__main__":
    main()
