"""The C suite: s2sad's C gradients of three objectives, timed against their primals.

For each objective in bench/c/ (a Gaussian-mixture log-likelihood with log-sum-exp,
a bundle-adjustment reprojection error, an LSTM over a short sequence), at
realistic sizes, this script generates the gradient with s2sad
(``s2sad grad bench/c/<f>.c --func <f>_objective --wrt ... -o grad.c``), compiles
primal and gradient with ``gcc -O2`` into shared libraries, calls both through
ctypes on the same inputs, and prints gradient time / primal time. Each time is
the best of several repeats, each repeat running long enough (~0.2 s) to be
measured. Target (issue 4): at most 4x for every objective.

    .venv/bin/python bench/c_suite.py            # realistic sizes
    .venv/bin/python bench/c_suite.py --quick    # small sizes, a smoke run

The gradients are checked against finite differences in tests/test_c_objectives.py.
"""

from __future__ import annotations

import argparse
import ctypes
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402
from s2sad.diagnostics import DiagnosticError  # noqa: E402

HERE = Path(__file__).resolve().parent / "c"
CFLAGS = ["-std=c99", "-O2", "-shared", "-fPIC"]


@dataclass
class Objective:
    name: str
    file: str
    func: str
    wrt: list[str]
    sizes: str
    make_args: Callable[[np.random.Generator], list]  # primal arguments, in order


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_int if a.dtype == np.int32 else ctypes.c_double))


def gmm(d: int, k: int, n: int) -> Objective:
    def args(rng):
        isz = d * (d + 1) // 2
        return [d, k, n, rng.normal(size=k), rng.normal(size=k * d), 0.1 * rng.normal(size=k * isz),
                rng.normal(size=n * d)]
    return Objective("GMM log-likelihood", "gmm.c", "gmm_objective", ["alphas", "means", "icf"],
                     f"d={d}, K={k}, N={n}", args)


def ba(ncam: int, npts: int, nobs: int) -> Objective:
    def args(rng):
        cams = np.zeros((ncam, 11))
        cams[:, 0:3] = 0.1 * rng.normal(size=(ncam, 3))
        cams[:, 3:6] = rng.normal(size=(ncam, 3))
        cams[:, 6] = 1.0 + 0.1 * rng.random(ncam)
        cams[:, 7:9] = 0.01 * rng.normal(size=(ncam, 2))
        cams[:, 9:11] = 0.01 * rng.normal(size=(ncam, 2))
        pts = rng.normal(size=(npts, 3)) + np.array([0.0, 0.0, 8.0])
        cam_idx = rng.integers(0, ncam, nobs).astype(np.int32)
        pt_idx = rng.integers(0, npts, nobs).astype(np.int32)
        obs = rng.normal(size=nobs * 2)
        return [nobs, cams.ravel(), pts.ravel(), cam_idx, pt_idx, obs]
    return Objective("bundle adjustment", "ba.c", "ba_objective", ["cams", "pts"],
                     f"{ncam} cameras, {npts} points, {nobs} observations", args)


def lstm(steps: int, h: int, inp: int) -> Objective:
    def args(rng):
        return [steps, h, inp, 0.1 * rng.normal(size=4 * h * (h + inp)), 0.1 * rng.normal(size=4 * h),
                rng.normal(size=steps * inp), 0.1 * rng.normal(size=h), 0.1 * rng.normal(size=h),
                rng.normal(size=steps * h)]
    return Objective("LSTM sequence", "lstm.c", "lstm_objective", ["W", "b"], f"T={steps}, h={h}, in={inp}", args)


def _compile(source: str, workdir: Path, stem: str) -> ctypes.CDLL:
    src = workdir / f"{stem}.c"
    src.write_text(source)
    lib = workdir / f"lib{stem}.so"
    r = subprocess.run(["gcc", *CFLAGS, str(src), "-o", str(lib), "-lm"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"gcc failed on {stem}.c:\n{r.stderr}")
    return ctypes.CDLL(str(lib))


def _c_args(values: list) -> list:
    return [_ptr(v) if isinstance(v, np.ndarray) else ctypes.c_int(v) for v in values]


def _best_time(call: Callable[[], None], repeats: int = 5, min_time: float = 0.2) -> float:
    """Seconds per call: the best of ``repeats`` batches, each batch long enough to time."""
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            call()
        if time.perf_counter() - t0 >= min_time / repeats or number > 1 << 20:
            break
        number *= 2
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            call()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def run(obj: Objective, workdir: Path) -> tuple[float, float]:
    source = (HERE / obj.file).read_text()
    try:
        grad = pipeline.gradient_source(source, obj.file, obj.func, obj.wrt, target="c")
    except DiagnosticError as e:
        raise SystemExit(f"s2sad could not differentiate {obj.file}:\n{e.render()}")
    primal_lib = _compile(source, workdir, obj.file[:-2])
    grad_lib = _compile(grad, workdir, "grad_" + obj.file[:-2])
    values = obj.make_args(np.random.default_rng(0))
    primal = getattr(primal_lib, obj.func)
    primal.restype = ctypes.c_double
    primal_args = _c_args(values)

    # The gradient: each --wrt array is followed by its shadow; d_return comes last.
    names = _param_names(source, obj.func)
    grad_values: list = []
    for name, v in zip(names, values):
        grad_values.append(v)
        if name in obj.wrt:
            grad_values.append(np.zeros_like(v))
    gfn = getattr(grad_lib, "grad_" + obj.func)
    gfn.restype = None
    grad_args = _c_args(grad_values) + [ctypes.c_double(1.0)]
    t_primal = _best_time(lambda: primal(*primal_args))
    t_grad = _best_time(lambda: gfn(*grad_args))
    return t_primal, t_grad


def _param_names(source: str, func: str) -> list[str]:
    from s2sad.parse.c_frontend import parse_c

    return parse_c(source, "x.c", func).functions[func].param_names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        objectives = [gmm(3, 4, 50), ba(4, 50, 200), lstm(3, 8, 8)]
    else:
        objectives = [gmm(10, 25, 1000), ba(20, 2000, 8000), lstm(10, 32, 32)]
    print("s2sad C suite: gradient (s2sad grad FILE.c --wrt ... --target c) vs primal, both gcc -O2")
    print(f"{'objective':<20} {'sizes':<42} {'primal':>11} {'gradient':>11} {'ratio':>7}")
    with tempfile.TemporaryDirectory(prefix="s2sad_bench_") as tmp:
        worst = 0.0
        for obj in objectives:
            tp, tg = run(obj, Path(tmp))
            worst = max(worst, tg / tp)
            print(f"{obj.name:<20} {obj.sizes:<42} {tp * 1e3:>8.3f} ms {tg * 1e3:>8.3f} ms {tg / tp:>6.2f}x",
                  flush=True)
    print(f"worst ratio: {worst:.2f}x (target: at most 4x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
