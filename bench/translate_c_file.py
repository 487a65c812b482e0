"""Translation time of a 10,000-line C file of numerical code (issue 16's target: under 10 s).

The file is generated here, the same for every run (a fixed seed), from loop kernels of the
kinds numerical C has: stencils, reductions that then normalize, a running recurrence, a
clipped update with a branch, a small dense product, a log-sum-exp. Two shapes of the same
code: many small functions, each called once in turn by ``f`` (``static`` helpers, as a library
file has them), and one long function holding every kernel's loops in a block of its own. Each
is differentiated with respect to ``x`` and ``a`` (``s2sad grad --target c``), in this process
on the command line's deep stack, the function chosen as the command line chooses it (no
``--func``: the file parsed once for the choice and the gradient), timed in process CPU time,
the best of ``--repeat``.

    .venv/bin/python bench/translate_c_file.py [--lines 10000] [--repeat 1] [--write DIR]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402
from s2sad.deep_stack import run_deep  # noqa: E402

# Each kernel reads x (n numbers) and a, and updates y (n numbers); {c} is a constant that
# varies from one copy to the next.
KERNELS = [
    """    for (int i = 1; i < n - 1; i++) {{
        double t = a * x[i] + {c} * (x[i - 1] - 2.0 * x[i] + x[i + 1]);
        y[i] = y[i] + sin(t) * x[i];
    }}""",
    """    double s = 0.0;
    for (int i = 0; i < n; i++) {{
        s += y[i] * y[i];
    }}
    for (int i = 0; i < n; i++) {{
        y[i] = y[i] / (1.0 + {c} * s);
    }}""",
    """    double r = 0.0;
    for (int i = 0; i < n; i++) {{
        r = {c} * r + (1.0 - {c}) * x[i];
        y[i] += r * a;
    }}""",
    """    for (int i = 0; i < n; i++) {{
        double v = y[i] + a * x[i];
        if (v > {c}) {{
            v = {c} + 0.5 * (v - {c});
        }} else if (v < -{c}) {{
            v = -{c};
        }}
        y[i] = v;
    }}""",
    """    for (int i = 0; i < n; i++) {{
        double acc = 0.0;
        for (int j = 0; j < 4; j++) {{
            acc += x[(i + j) % n] * ({c} + j);
        }}
        y[i] = tanh(acc + y[i]);
    }}""",
    """    double m = y[0];
    for (int i = 1; i < n; i++) {{
        m = fmax(m, y[i]);
    }}
    double z = 0.0;
    for (int i = 0; i < n; i++) {{
        z += exp(y[i] - m);
    }}
    double lse = m + log(z);
    for (int i = 0; i < n; i++) {{
        y[i] = y[i] - {c} * lse + a * x[i];
    }}""",
]

HEAD = "#include <math.h>\n"


def kernels(lines: int, rng: random.Random) -> list[str]:
    """Kernel bodies, one after another, more than a file of ``lines`` lines holds."""
    out: list[str] = []
    total = 0
    while total < lines:
        body = rng.choice(KERNELS).format(c=f"{rng.uniform(0.1, 0.9):.3f}")
        out.append(body)
        total += body.count("\n") + 1
    return out


def filled(make, bodies: list[str], lines: int) -> tuple[str, int]:
    """The file ``make`` writes of the most kernels (the first of ``bodies``) that fit in ``lines``
    lines, and how many it holds: each shape's file is as long as the others (one function has no
    signature or call per kernel, so it holds more of them)."""
    low, high = 1, len(bodies)  # the answer is in [low, high]
    while low < high:
        mid = (low + high + 1) // 2
        if make(bodies[:mid]).count("\n") <= lines:
            low = mid
        else:
            high = mid - 1
    return make(bodies[:low]), low


def many_functions(bodies: list[str]) -> str:
    parts = [HEAD]
    for k, body in enumerate(bodies):
        parts.append(f"static void k{k}(int n, const double *x, double *y, double a)\n{{\n{body}\n}}\n")
    calls = "\n".join(f"    k{k}(n, x, y, a);" for k in range(len(bodies)))
    parts.append("double f(int n, const double *x, double *y, double a)\n{\n" + calls
                 + "\n    double s = 0.0;\n    for (int i = 0; i < n; i++) {\n        s += y[i];\n    }\n"
                 "    return s;\n}\n")
    return "\n".join(parts)


def one_function(bodies: list[str]) -> str:
    blocks = "\n".join("    {\n" + "\n".join("    " + line for line in body.split("\n")) + "\n    }"
                       for body in bodies)
    return (HEAD + "\ndouble f(int n, const double *x, double *y, double a)\n{\n" + blocks
            + "\n    double s = 0.0;\n    for (int i = 0; i < n; i++) {\n        s += y[i];\n    }\n"
            "    return s;\n}\n")


def seconds(source: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run_deep(lambda: pipeline.gradient_source(source, "numerics.c", None, ["x", "a"], "c"))
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--write", type=Path, help="also write the two files into this folder")
    args = ap.parse_args()
    bodies = kernels(args.lines, random.Random(16))
    print(f"{'C file':<20}{'lines':>8}{'functions':>11}{'seconds':>10}")
    for shape, make in (("many functions", many_functions), ("one function", one_function)):
        source, used = filled(make, bodies, args.lines)
        if args.write:
            args.write.mkdir(parents=True, exist_ok=True)
            (args.write / f"{shape.replace(' ', '_')}.c").write_text(source)
        count = used + 1 if make is many_functions else 1
        print(f"{shape:<20}{source.count(chr(10)):>8}{count:>11}{seconds(source, args.repeat):>9.2f}s", flush=True)


if __name__ == "__main__":
    main()
