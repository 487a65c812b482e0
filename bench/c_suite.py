"""C benchmark suite: s2sad's C gradients of three classic AD objectives against their primals.

The objectives live in bench/c/ (written for this project from the mathematics):

- ``gmm.c``  ``gmm_objective``  Gaussian mixture objective with log-sum-exp, --wrt alphas,means,icf
- ``ba.c``   ``ba_objective``   bundle adjustment reprojection error,        --wrt cams,pts
- ``lstm.c`` ``lstm_objective`` LSTM over a short sequence, squared loss,     --wrt W,b

For each one the script generates the gradient with ``s2sad.pipeline.gradient_source(...,
target="c")`` (the same as ``s2sad grad bench/c/gmm.c --func gmm_objective --wrt
alphas,means,icf --target c``), builds the primal and the gradient with ``gcc -O2 -shared
-fPIC ... -lm`` in a temporary directory, calls both through ctypes on random NumPy data, and
prints the median CPU time per call of primal and gradient, timed in alternation
(``interleaved_cpu_times``), and the ratio gradient / primal. Usage::

    .venv/bin/python bench/c_suite.py [--quick] [--only gmm,ba,lstm] [--time 0.2] [-O 2] [--workspace]
    .venv/bin/python bench/c_suite.py --check     # gradient vs central differences, small sizes

``--workspace`` generates with ``s2sad grad --workspace`` and also times ``grad_f_ws`` called on
one workspace kept across the calls (its tapes allocated once, not faulted in on every call),
after checking that it gives the adjoints ``grad_f`` gives.

``--check`` compares each gradient with central differences of the compiled primal at a
handful of random coordinates of every --wrt array (small sizes) and exits with status 1 on
a mismatch. If s2sad cannot differentiate an objective, the script prints its diagnostic and
exits with status 1. Machines are noisy: quote ratios from one run.
"""

from __future__ import annotations

import argparse
import ctypes
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from objectives import C_DIR, OBJECTIVES, Objective, central_difference  # noqa: E402  (bench/ is the script's dir)
from timing import fmt_time, interleaved_cpu_times  # noqa: E402
from s2sad import pipeline  # noqa: E402
from s2sad.diagnostics import DiagnosticError  # noqa: E402
CFLAGS = ["-O2", "-shared", "-fPIC"]


# ----------------------------------------------------------------------------- building and calling


class BenchError(Exception):
    """A failure with a message ready for the user (no traceback)."""


_SCALAR = {"int": ctypes.c_int, "double": ctypes.c_double, "void *": ctypes.c_void_p}
_POINTER = {"double *": (np.float64, ctypes.c_double), "int *": (np.int32, ctypes.c_int)}


def compile_lib(source: str, name: str, tmp: Path) -> ctypes.CDLL:
    src = tmp / f"{name}.c"
    src.write_text(source)
    lib = tmp / f"lib{name}.so"
    r = subprocess.run(["gcc", *CFLAGS, "-I", str(C_DIR), str(src), "-o", str(lib), "-lm"], capture_output=True,
                       text=True)  # -I: the objectives' headers (bench/c/gmm.h)
    if r.returncode != 0:
        raise BenchError(f"gcc failed on {name}.c:\n{r.stderr}")
    return ctypes.CDLL(str(lib))


def c_function(lib: ctypes.CDLL, name: str, types: list[str], result: str) -> Callable[..., float]:
    """``name`` from ``lib`` as a Python callable taking NumPy arrays and ints/floats."""
    fn = getattr(lib, name)
    fn.argtypes = [ctypes.POINTER(_POINTER[t][1]) if t in _POINTER else _SCALAR[t] for t in types]
    fn.restype = None if result == "void" else _SCALAR[result]

    def call(*args):
        c_args = []
        for t, a in zip(types, args):
            if t in _POINTER:
                assert a.dtype == _POINTER[t][0] and a.flags.c_contiguous, (name, t, a.dtype)
                c_args.append(a.ctypes.data_as(ctypes.POINTER(_POINTER[t][1])))
            else:
                c_args.append(a)
        return fn(*c_args)

    call.__name__ = name
    return call


def generate(obj: Objective, level: int, workspace: bool = False) -> str:
    """The C gradient from s2sad, or a BenchError with s2sad's diagnostic."""
    opts = pipeline.Options(level=level, workspace=workspace)
    try:
        return pipeline.gradient_source(obj.path.read_text(), str(obj.path), obj.func, obj.wrt, target="c",
                                        options=opts)  # the path: its headers are found beside it
    except DiagnosticError as e:
        raise BenchError(f"s2sad cannot differentiate {obj.func} in bench/c/{obj.file}:\n{e.render()}") from None
    except Exception as e:  # an internal error: still no traceback for the benchmark's user
        raise BenchError(
            f"s2sad failed on {obj.func} in bench/c/{obj.file}: {type(e).__name__}: {e}\n"
            f"(reproduce with: {obj.command(level)})"
        ) from None


def build_pair(obj: Objective, level: int, tmp: Path, workspace: bool = False):
    """The primal and the gradient, called as Python functions; with ``workspace``, also the
    gradient on one workspace that every call shares (``grad_f_ws``; None without)."""
    primal_lib = compile_lib(obj.path.read_text(), obj.key, tmp)
    grad_lib = compile_lib(generate(obj, level, workspace), f"grad_{obj.key}", tmp)
    primal = c_function(primal_lib, obj.func, obj.types, "double")
    grad = c_function(grad_lib, f"grad_{obj.func}", obj.gradient_types(), "void")
    if not workspace:
        return primal, grad, None
    new = getattr(grad_lib, f"grad_{obj.func}_workspace_new")
    new.restype = ctypes.c_void_p
    ws = new()  # (freed with the process: one per objective)
    kept = c_function(grad_lib, f"grad_{obj.func}_ws", ["void *", *obj.gradient_types()], "void")

    def grad_ws(*args):
        return kept(ws, *args)

    return primal, grad, grad_ws


def gradient_args(obj: Objective, args: list, shadows: dict[str, np.ndarray], d_return: float) -> list:
    out = []
    for name, a in zip(obj.names, args):
        out.append(a)
        if name in obj.wrt:
            out.append(shadows[name])
    return out + [d_return]


# ----------------------------------------------------------------------------- timing


def run_timing(objectives: list[Objective], size: str, level: int, budget: float, workspace: bool = False) -> None:
    rows = []
    with tempfile.TemporaryDirectory(prefix="s2sad_bench_") as tmp:
        for obj in objectives:
            primal, grad, grad_ws = build_pair(obj, level, Path(tmp), workspace)
            rng = np.random.default_rng(0)
            sizes = obj.sizes[size]
            args = obj.data(rng, **sizes)
            if grad_ws is not None:
                _same_adjoints(obj, args, grad, grad_ws)
            shadows = {name: np.zeros_like(args[obj.names.index(name)]) for name in obj.wrt}
            gargs = gradient_args(obj, args, shadows, 1.0)
            # shadows accumulate across the timed calls (+=); their values do not affect timing
            calls = [lambda: primal(*args), lambda: grad(*gargs)]
            if grad_ws is not None:
                calls.append(lambda: grad_ws(*gargs))
            times = interleaved_cpu_times(calls, budget)
            rows.append((obj.key, " ".join(f"{k}={v}" for k, v in sizes.items()), *times))
            print(f"  {obj.key}: done", file=sys.stderr, flush=True)

    w = max(len(r[1]) for r in rows)
    head = f"{'objective':10} {'sizes':{w}} {'primal':>11} {'gradient':>11} {'grad/primal':>12}"
    print(head + (f" {'grad_ws':>11} {'ws/primal':>10}" if workspace else ""))
    for key, sizes, tp, tg, *tw in rows:
        line = f"{key:10} {sizes:{w}} {fmt_time(tp):>11} {fmt_time(tg):>11} {tg / tp:12.2f}"
        print(line + (f" {fmt_time(tw[0]):>11} {tw[0] / tp:10.2f}" if tw else ""))


def _same_adjoints(obj: Objective, args: list, grad, grad_ws) -> None:
    """``grad_ws`` gives what ``grad`` gives, on its first call and on the next (its tapes kept)."""
    expected = {name: np.zeros_like(args[obj.names.index(name)]) for name in obj.wrt}
    grad(*gradient_args(obj, [a.copy() if isinstance(a, np.ndarray) else a for a in args], expected, 1.0))
    for _ in range(2):
        got = {name: np.zeros_like(v) for name, v in expected.items()}
        grad_ws(*gradient_args(obj, [a.copy() if isinstance(a, np.ndarray) else a for a in args], got, 1.0))
        for name in obj.wrt:
            if not np.array_equal(got[name], expected[name]):
                raise BenchError(f"{obj.key}: grad_{obj.func}_ws gives other adjoints of {name} than grad_{obj.func}")


# ----------------------------------------------------------------------------- finite-difference check


def run_check(objectives: list[Objective], level: int, per_array: int = 6) -> bool:
    ok = True
    with tempfile.TemporaryDirectory(prefix="s2sad_check_") as tmp:
        for obj in objectives:
            primal, grad, _ = build_pair(obj, level, Path(tmp))
            rng = np.random.default_rng(1)
            args = obj.data(rng, **obj.sizes["check"])
            shadows = {name: np.zeros_like(args[obj.names.index(name)]) for name in obj.wrt}
            grad(*gradient_args(obj, args, shadows, 1.0))
            for name in obj.wrt:
                a = args[obj.names.index(name)]
                coords = rng.choice(a.size, size=min(per_array, a.size), replace=False)
                worst = 0.0
                for j in coords:
                    fd = central_difference(primal, args, obj.names.index(name), j)
                    err = abs(shadows[name][j] - fd) / max(1.0, abs(fd))
                    worst = max(worst, err)
                    if err > 1e-5:
                        ok = False
                        got = float(shadows[name][j])
                        print(f"  MISMATCH {obj.func} d_{name}[{j}]: gradient {got!r}, finite differences {fd!r}")
                status = "ok" if worst <= 1e-5 else "FAILED"
                print(f"  {obj.key:5} d_{name:7} {len(coords)} coordinates, max rel. error {worst:.2e}  {status}")
    return ok


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (seconds, for smoke tests)")
    ap.add_argument("--check", action="store_true", help="check gradients against central differences, then exit")
    ap.add_argument("--only", default="", help="comma-separated subset of: " + ",".join(o.key for o in OBJECTIVES))
    ap.add_argument("--time", type=float, default=0.2, help="seconds spent timing each function (default 0.2)")
    ap.add_argument("-O", dest="level", type=int, default=2, choices=(0, 1, 2), help="s2sad optimization level")
    ap.add_argument("--workspace", action="store_true",
                    help="also time grad_f_ws on a workspace kept across calls (s2sad grad --workspace)")
    args = ap.parse_args(argv)

    objectives = OBJECTIVES
    if args.only:
        keys = args.only.split(",")
        unknown = [k for k in keys if k not in {o.key for o in OBJECTIVES}]
        if unknown:
            ap.error(f"unknown objective(s): {', '.join(unknown)}")
        objectives = [o for o in OBJECTIVES if o.key in keys]

    print("s2sad C benchmark suite: gradients generated as by")
    for obj in objectives:
        print(f"  {obj.command(args.level)}")
    print(f"compiled with: gcc {' '.join(CFLAGS)} ... -lm")
    print()

    try:
        if args.check:
            ok = run_check(objectives, args.level)
            print("all gradients match finite differences" if ok else "gradient check FAILED")
            return 0 if ok else 1
        run_timing(objectives, "quick" if args.quick else "full", args.level, args.time, args.workspace)
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
