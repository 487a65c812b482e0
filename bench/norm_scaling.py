"""How the gradient of `norm` scales at -O0 and -O2: optimize, then differentiate.

`examples/norm.py` computes `out[i] = in_[i] / mag(in_, n)` inside a loop, so
`mag` (itself a loop) runs n times: the primal is O(n^2) as written, and so is
any gradient differentiated from it as written (-O0: `grad_mag` runs inside the
reversed loop). At -O2, s2sad hoists `mag(in_, n)` out of the loop *before*
differentiating, and the gradient is O(n).

The script generates both gradients with `--target numba`, times them for n from
1,000 to 64,000 (best of several runs after a warm-up call that compiles), fits
the scaling exponent (slope of log time against log n), and compares the -O2
gradient with a hand-written O(n) primal (mag hoisted by hand, compiled with
numba). Usage::

    .venv/bin/python bench/norm_scaling.py [--max-n 64000] [--plot bench/norm_scaling.png]

Machines are noisy: quote ratios from one run.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402


@numba.njit
def norm_by_hand(out, in_, n):
    """The O(n) primal a person would write: the magnitude computed once."""
    s = 0.0
    for i in range(n):
        s += in_[i] * in_[i]
    m = math.sqrt(s)
    for i in range(n):
        out[i] = in_[i] / m


def load_gradient(level: int, workdir: Path):
    source = (ROOT / "examples" / "norm.py").read_text()
    text = pipeline.gradient_source(source, "norm.py", "norm", ["in"], "numba", pipeline.Options(level=level))
    path = workdir / f"grad_norm_O{level}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"grad_norm_O{level}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.grad_norm


def load_c_gradient(level: int, workdir: Path):
    """The C gradient (``--target c``) built with ``gcc -O2`` and called through ctypes."""
    source = (ROOT / "examples" / "norm.py").read_text()
    text = pipeline.gradient_source(source, "norm.py", "norm", ["in"], "c", pipeline.Options(level=level))
    c_file, lib = workdir / f"grad_norm_O{level}.c", workdir / f"libgrad_norm_O{level}.so"
    c_file.write_text(text)
    subprocess.run(["gcc", "-std=c99", "-O2", "-shared", "-fPIC", str(c_file), "-o", str(lib), "-lm"], check=True)
    fn = ctypes.CDLL(str(lib)).grad_norm
    ptr = np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS")
    fn.argtypes = [ptr, ptr, ptr, ptr, ctypes.c_long]
    fn.restype = None
    return fn


def best_time(fn, make_args, budget: float = 0.3, max_runs: int = 20) -> float:
    """The best of several timed runs (fresh arguments each), within a time budget."""
    best = math.inf
    spent = 0.0
    runs = 0
    while runs < max_runs and (runs < 2 or spent < budget):
        args = make_args()
        t0 = time.perf_counter()
        fn(*args)
        dt = time.perf_counter() - t0
        best = min(best, dt)
        spent += dt
        runs += 1
        if dt > budget:
            break  # a slow case: one run is enough
    return best


def exponent(ns: list[int], times: list[float]) -> float:
    """The slope of log(time) against log(n), by least squares."""
    return float(np.polyfit(np.log(ns), np.log(times), 1)[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-n", type=int, default=64000)
    ap.add_argument("--plot", help="write a log-log plot (PNG) here; needs matplotlib")
    args = ap.parse_args()

    ns = [n for n in (1000, 2000, 4000, 8000, 16000, 32000, 64000) if n <= args.max_n]
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        grads = {level: load_gradient(level, Path(tmp)) for level in (0, 2)}
        c_grads = {}
        if shutil.which("gcc"):
            c_grads = {level: load_c_gradient(level, Path(tmp)) for level in (0, 2)}
        rows = []
        c_rows = []
        for n in ns:
            x = rng.uniform(0.5, 1.5, n)
            seed = rng.normal(size=n)

            def grad_args():
                return (np.empty(n), seed.copy(), x, np.zeros(n), n)

            if n == ns[0]:  # compile before timing
                for g in grads.values():
                    g(*grad_args())
                norm_by_hand(np.empty(n), x, n)
            t0 = best_time(grads[0], grad_args)
            t2 = best_time(grads[2], grad_args)
            tp = best_time(norm_by_hand, lambda: (np.empty(n), x, n))
            rows.append((n, t0, t2, tp))
            if c_grads:
                c_rows.append((n, best_time(c_grads[0], grad_args), best_time(c_grads[2], grad_args)))
            print(f"  measured n = {n}", file=sys.stderr)

    print(f"{'n':>7}  {'-O0 gradient':>13}  {'-O2 gradient':>13}  {'O(n) primal':>12}  {'-O2 / primal':>12}")
    for n, t0, t2, tp in rows:
        print(f"{n:>7}  {t0 * 1e3:>10.3f} ms  {t2 * 1e3:>10.3f} ms  {tp * 1e3:>9.3f} ms  {t2 / tp:>12.2f}")
    big = [r for r in rows if r[0] >= 4000] or rows
    e0 = exponent([r[0] for r in big], [r[1] for r in big])
    e2 = exponent([r[0] for r in big], [r[2] for r in big])
    print(f"scaling exponent (n >= {big[0][0]}): -O0 {e0:.2f}, -O2 {e2:.2f}")
    print(f"-O2 gradient / O(n) primal at n = {rows[-1][0]}: {rows[-1][2] / rows[-1][3]:.2f}x")
    if c_rows:
        print(f"\nC gradients (gcc -O2):\n{'n':>7}  {'-O0 gradient':>13}  {'-O2 gradient':>13}")
        for n, c0, c2 in c_rows:
            print(f"{n:>7}  {c0 * 1e3:>10.3f} ms  {c2 * 1e3:>10.3f} ms")
        cbig = [r for r in c_rows if r[0] >= 4000] or c_rows
        ce0 = exponent([r[0] for r in cbig], [r[1] for r in cbig])
        ce2 = exponent([r[0] for r in cbig], [r[2] for r in cbig])
        print(f"C scaling exponent (n >= {cbig[0][0]}): -O0 {ce0:.2f}, -O2 {ce2:.2f}")

    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        n_arr = [r[0] for r in rows]
        ax.loglog(n_arr, [r[1] for r in rows], "o-", label=f"gradient at -O0 (slope {e0:.2f})")
        ax.loglog(n_arr, [r[2] for r in rows], "s-", label=f"gradient at -O2 (slope {e2:.2f})")
        ax.loglog(n_arr, [r[3] for r in rows], "^--", label="hand-written O(n) primal")
        ax.set_xlabel("n")
        ax.set_ylabel("time (s), Numba")
        ax.set_title("grad_norm: optimize, then differentiate")
        ax.legend()
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot written to {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
