"""The parallel adjoint (--parallel): a gradient's independent loop on 1 and on 2 threads.

The objective is an elementwise sum of transcendental terms over n = 4,000,000 points, whose
reverse loop touches only its own elements (opt/forward_order.py): with --parallel it is a
``numba.prange`` loop in Numba output and an OpenMP ``parallel for`` in C (gcc -O2 -fopenmp).
Each gradient is timed in wall time (threads share the work, so CPU time would hide the gain),
the threads set in alternation (Numba's ``set_num_threads``, OpenMP's ``omp_set_num_threads``),
the median of the rounds. Run it on an otherwise idle machine: other jobs take the second core.

    .venv/bin/python bench/parallel_adjoint.py [--n 4000000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402

SOURCE = """import math


def energy(x, y, n: int):
    s = 0.0
    for i in range(n):
        s += math.exp(math.sin(x[i]) * y[i]) + math.log1p(x[i] * x[i])
    return s
"""


def numba_gradient():
    import numba

    text = pipeline.gradient_source(SOURCE, "energy.py", "energy", ["x", "y"], "numba",
                                    pipeline.Options(parallel=True))
    namespace: dict = {}
    exec(text, namespace)
    return namespace["grad_energy"], numba.set_num_threads


def c_gradient():
    text = pipeline.gradient_source(SOURCE, "energy.py", "energy", ["x", "y"], "c", pipeline.Options(parallel=True))
    folder = Path(tempfile.mkdtemp(prefix="s2sad_par_"))
    (folder / "g.c").write_text(text)
    subprocess.run(["gcc", "-std=c99", "-O2", "-fopenmp", "-shared", "-fPIC", str(folder / "g.c"), "-o",
                    str(folder / "g.so"), "-lm"], check=True)
    lib = ctypes.CDLL(str(folder / "g.so"))
    omp = ctypes.CDLL("libgomp.so.1")
    ptr = ctypes.POINTER(ctypes.c_double)
    lib.grad_energy.argtypes = [ptr, ptr, ptr, ptr, ctypes.c_long, ctypes.c_double]

    def grad(x, d_x, y, d_y, n, seed):
        lib.grad_energy(x.ctypes.data_as(ptr), d_x.ctypes.data_as(ptr), y.ctypes.data_as(ptr),
                        d_y.ctypes.data_as(ptr), n, seed)
    return grad, omp.omp_set_num_threads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4_000_000)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-1, 1, args.n), rng.uniform(-1, 1, args.n)
    d_x, d_y = np.zeros(args.n), np.zeros(args.n)
    print(f"{'gradient':<10}{'n':>10}{'1 thread':>12}{'2 threads':>12}{'speedup':>9}")
    for name, make in (("numba", numba_gradient), ("c", c_gradient)):
        grad, threads = make()
        times: dict[int, list[float]] = {1: [], 2: []}
        for k in (1, 2):
            threads(k)
            grad(x, d_x, y, d_y, args.n, 1.0)  # compiled, pages touched
        for _ in range(args.rounds):
            for k in (1, 2):
                threads(k)
                start = time.perf_counter()
                grad(x, d_x, y, d_y, args.n, 1.0)
                times[k].append(time.perf_counter() - start)
        one, two = statistics.median(times[1]), statistics.median(times[2])
        print(f"{name:<10}{args.n:>10}{one * 1e3:>10.2f}ms{two * 1e3:>10.2f}ms{one / two:>8.2f}x", flush=True)


if __name__ == "__main__":
    main()
