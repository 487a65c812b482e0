"""How the benchmarks time: one thread per library, process CPU time, tools in alternation, medians.

On a shared machine other jobs take wall time from a run but little of its CPU time; timed in
alternation (a round runs every tool once), a slow phase of the machine falls on every tool
alike; the median drops the rounds a burst spoiled. ``pin_threads`` must run before NumPy, Numba,
JAX or PyTorch load their thread pools.
"""

from __future__ import annotations

import os
import time
from typing import Callable, Sequence

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def pin_threads() -> None:
    """One thread for every library (unless the caller's environment says otherwise)."""
    for var in THREAD_VARIABLES:
        os.environ.setdefault(var, "1")
    # XLA's CPU client: no intra-op thread pool beyond one.
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")


def interleaved_cpu_times(calls: Sequence[Callable[[], object]], budget: float, rounds: int = 5) -> list[float]:
    """Median CPU seconds per call of each function in ``calls``: rounds that run each in turn
    (``number`` calls each, about budget / 10 seconds), for about ``budget`` seconds per function
    and at least ``rounds`` rounds. Each function is called once first (compilation, page faults)."""
    numbers = []
    for fn in calls:
        fn()  # warm-up
        t0 = time.process_time()
        fn()
        once = max(time.process_time() - t0, 1e-7)
        numbers.append(max(1, int(budget / 10 / once)))
    samples: list[list[float]] = [[] for _ in calls]
    start = time.process_time()
    while len(samples[0]) < rounds or time.process_time() - start < budget * len(calls):
        for fn, number, out in zip(calls, numbers, samples):
            t0 = time.process_time()
            for _ in range(number):
                fn()
            out.append((time.process_time() - t0) / number)
    return [sorted(s)[len(s) // 2] for s in samples]


def fmt_time(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:8.1f} us"
    if s < 1.0:
        return f"{s * 1e3:8.3f} ms"
    return f"{s:8.3f} s "
