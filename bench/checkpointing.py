"""Memory and time of the reverse sweep under each checkpointing schedule: a 1-D heat equation.

An explicit time stepper (10,000 steps on 1,000 points by default) with a cubic
reaction term, so that every step's reverse sweep needs that step's values:

    work[i] = u[i] + c * (u[i-1] - 2 u[i] + u[i+1]) - 0.1 u[i]^3;  u[i] = work[i]

It is written in C with `#pragma s2sad checkpoint SCHEDULE` on the time loop,
differentiated by s2sad (`--target c`) once per schedule, compiled with
`gcc -O2` and called through ctypes. For each schedule the script reports:

* peak heap memory of the gradient run, counted by wrapping the generated
  code's malloc/realloc/free (every tape, snapshot and work array is on the
  heap; the few stack arrays of snapshot positions are a few hundred bytes);
* gradient time / primal time (best of a few runs);
* for binomial(s): iterations the reverse sweep re-runs, counted by a counter
  placed in the generated advance loop, against the revolve formula
  (`s2sad.adjoint.revolve.recomputed`), and the gradient is checked against
  store-all's.

Usage::

    .venv/bin/python bench/checkpointing.py [--quick] [--all] [--plot FILE]

`--quick` uses 200 steps on 50 points (the test suite runs it); `recompute`
(quadratic in the steps) runs at full size only with `--all`.
"""

from __future__ import annotations

import argparse
import ctypes
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402
from s2sad.adjoint import revolve  # noqa: E402

HEAT = """\
double heat(double *u, double *work, int n, int steps, double c)
{
#pragma s2sad checkpoint SCHEDULE
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            work[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.1 * u[i] * u[i] * u[i];
        for (int i = 1; i < n - 1; i++)
            u[i] = work[i];
    }
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += u[i] * u[i];
    return s;
}
"""

# Counts the heap the generated code uses: each block carries its size in front of it
# (a size_t, so blocks stay aligned for doubles).
COUNTING = """\
#include <stdlib.h>
long bench_bytes = 0, bench_peak = 0, bench_advances = 0;
static void *bench_malloc(size_t n) {
    size_t *p = (malloc)(n + sizeof(size_t));
    *p = n; bench_bytes += (long)n;
    if (bench_bytes > bench_peak) bench_peak = bench_bytes;
    return p + 1;
}
static void *bench_calloc(size_t k, size_t n) {
    char *p = bench_malloc(k * n);
    for (size_t i = 0; i < k * n; i++) p[i] = 0;
    return p;
}
static void *bench_realloc(void *q, size_t n) {
    size_t *p = (size_t *)q - 1;
    bench_bytes += (long)n - (long)*p;
    p = (realloc)(p, n + sizeof(size_t)); *p = n;
    if (bench_bytes > bench_peak) bench_peak = bench_bytes;
    return p + 1;
}
static void bench_free(void *q) {
    if (!q) return;
    size_t *p = (size_t *)q - 1;
    bench_bytes -= (long)*p; (free)(p);
}
#define malloc bench_malloc
#define realloc bench_realloc
#define calloc bench_calloc
#define free bench_free
"""

SCHEDULES = ["store-all", "recompute", "periodic(100)", "binomial(5)", "binomial(10)", "binomial(20)"]
C_FLAGS = ["gcc", "-std=c99", "-O2", "-shared", "-fPIC", "-Wno-unknown-pragmas"]


def _compile(source: str, tmp: Path, name: str) -> ctypes.CDLL:
    src, lib = tmp / f"{name}.c", tmp / f"lib{name}.so"
    src.write_text(source)
    subprocess.run([*C_FLAGS, str(src), "-o", str(lib), "-lm"], check=True)
    return ctypes.CDLL(str(lib))


def _instrument(text: str) -> str:
    """The generated gradient with counted heap and a counter in its advance loop."""
    text = text.replace("#include <stdlib.h>\n", "")
    text, found = re.subn(r"(\n(\s*)for \(long \w+ = (?:ck_at|ck_from); \w+ < (?:ck_mid|t); \w+\+\+\) \{\n)",
                          r"\1\2    bench_advances++;\n", text)
    assert found <= 1
    head, _, rest = text.partition("\n\n")
    return head + "\n\n" + COUNTING + "\n" + rest


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


def _best_of(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(steps: int, n: int, schedules: list[str], repeats: int) -> list[dict]:
    rng = np.random.default_rng(0)
    u0 = rng.uniform(0.0, 1.0, n)
    c = 0.2
    rows = []
    with tempfile.TemporaryDirectory(prefix="s2sad_ck_") as d:
        tmp = Path(d)
        primal = _compile(HEAT.replace("SCHEDULE", "store-all"), tmp, "primal")
        primal.heat.restype = ctypes.c_double
        primal.heat.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_double]

        def call_primal():
            u, work = u0.copy(), np.zeros(n)
            primal.heat(u.ctypes.data, work.ctypes.data, n, steps, c)

        t_primal = _best_of(call_primal, repeats)
        reference = None
        for k, schedule in enumerate(schedules):
            text = pipeline.gradient_source(HEAT.replace("SCHEDULE", schedule), "heat.c", "heat", ["u", "c"], "c")
            lib = _compile(_instrument(text), tmp, f"grad{k}")
            lib.grad_heat.restype = None
            counters = {name: ctypes.c_long.in_dll(lib, name) for name in ("bench_peak", "bench_advances")}
            out = {}

            def call_gradient():
                u, work = u0.copy(), np.zeros(n)
                d_u, d_work, d_c = np.zeros(n), np.zeros(n), np.zeros(1)
                for v in counters.values():
                    v.value = 0
                lib.grad_heat(_ptr(u), _ptr(d_u), _ptr(work), _ptr(d_work), ctypes.c_int(n), ctypes.c_int(steps),
                              ctypes.c_double(c), _ptr(d_c), ctypes.c_double(1.0))
                out.update(d_u=d_u, d_c=d_c[0])

            t_grad = _best_of(call_gradient, repeats)
            if reference is None:
                reference = dict(out)
            agree = np.allclose(out["d_u"], reference["d_u"], rtol=1e-10, atol=1e-13) and np.isclose(
                out["d_c"], reference["d_c"], rtol=1e-10
            )
            m = re.fullmatch(r"binomial\((\d+)\)", schedule)
            formula = revolve.recomputed(steps, int(m.group(1))) if m else None
            rows.append(
                dict(schedule=schedule, peak=counters["bench_peak"].value, ratio=t_grad / t_primal,
                     advances=counters["bench_advances"].value, formula=formula, agree=agree, t_grad=t_grad)
            )
    return rows


def table(rows: list[dict], steps: int, n: int) -> str:
    base = rows[0]["peak"] if rows and rows[0]["schedule"] == "store-all" else None
    out = [
        f"heat equation: {steps} steps on {n} points (C, gcc -O2)",
        f"{'schedule':<15}{'peak heap':>12}{'% store-all':>13}{'grad/primal':>13}{'re-run steps':>14}"
        f"{'revolve':>10}{'same grad':>11}",
    ]
    for r in rows:
        pct = f"{100.0 * r['peak'] / base:.2f}" if base else "-"
        formula = str(r["formula"]) if r["formula"] is not None else "-"
        out.append(
            f"{r['schedule']:<15}{_size(r['peak']):>12}{pct:>13}{r['ratio']:>13.2f}{r['advances']:>14}"
            f"{formula:>10}{'yes' if r['agree'] else 'NO':>11}"
        )
    return "\n".join(out)


def _size(b: int) -> str:
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if b >= scale:
            return f"{b / scale:.1f} {unit}"
    return f"{b} B"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="200 steps on 50 points")
    p.add_argument("--all", action="store_true", help="also run recompute at full size (quadratic)")
    p.add_argument("--plot", metavar="FILE", help="a memory-vs-time plot (needs matplotlib)")
    args = p.parse_args(argv)
    steps, n, repeats = (200, 50, 3) if args.quick else (10_000, 1_000, 3)
    schedules = [s for s in SCHEDULES if args.quick or args.all or s != "recompute"]
    rows = run(steps, n, schedules, repeats)
    print(table(rows, steps, n))
    if not all(r["agree"] for r in rows):
        print("error: a schedule's gradient differs from store-all's", file=sys.stderr)
        return 1
    if any(r["formula"] is not None and r["formula"] != r["advances"] for r in rows):
        print("error: re-run steps differ from the revolve formula", file=sys.stderr)
        return 1
    if args.plot:
        _plot(rows, args.plot)
    return 0


def _plot(rows: list[dict], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in rows:
        ax.scatter(r["peak"] / (1 << 20), r["ratio"])
        ax.annotate(r["schedule"], (r["peak"] / (1 << 20), r["ratio"]))
    ax.set_xscale("log")
    ax.set_xlabel("peak heap of the gradient (MB)")
    ax.set_ylabel("gradient time / primal time")
    fig.tight_layout()
    fig.savefig(path)


if __name__ == "__main__":
    sys.exit(main())
