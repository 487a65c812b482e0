"""NumPy benchmark suite: s2sad's vectorized gradients of whole-array objectives against their primals.

Two objectives written with whole-array NumPy (defined below, as a user would write them):

- ``mlp``      a two-layer tanh network's mean squared error on a batch, --wrt W1,b1,W2,b2
- ``softmax``  softmax cross-entropy of a linear classifier on a batch,  --wrt W,b

each twice: annotated with its parameters' ranks, and as usually written, without annotations
(``mlp_plain``, ``softmax_plain``: the ranks inferred, the biases' adjoints shape-generic).

For each one the script generates the gradient with ``s2sad.pipeline.gradient_source(...,
target="py")`` (the same as ``s2sad grad numpy_suite.py --func mlp --wrt W1,b1,W2,b2``), and
times, on random data at realistic sizes, the primal, the s2sad gradient (which also runs the
primal: its forward sweep), ``autograd.grad`` and ``jax.grad`` under ``jax.jit`` when those are
installed ("skipped: not installed" otherwise); with ``--numba`` also the ``--target numba``
gradient (imported from a file; its first call, which compiles, timed apart). It prints the
median process CPU time per call, the tools timed in alternation (``bench/timing.py``), and
each gradient's ratio to the primal (target: within 3x, and faster than autograd). Usage::

    .venv/bin/python bench/numpy_suite.py [--quick] [--only mlp,softmax] [--time 0.3] [--numba]
    .venv/bin/python bench/numpy_suite.py --check     # gradient vs central differences, small sizes

``--check`` compares the s2sad gradient with central differences of the primal at random
coordinates of every --wrt array and exits with status 1 on a mismatch. Every library runs on one
thread (``timing.pin_threads``: ``OPENBLAS_NUM_THREADS=1`` and friends, unless already set) so that the ratios compare
work rather than thread scheduling; machines are noisy all the same: quote ratios from one run.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from timing import interleaved_cpu_times, pin_threads  # (bench/ is the script's folder)

pin_threads()  # before NumPy loads its BLAS

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from s2sad import pipeline  # noqa: E402
from s2sad.diagnostics import DiagnosticError  # noqa: E402


# ----------------------------------------------------------------------------- the objectives
# The annotations give s2sad the ranks (ruff reads them as forward references: noqa).
def mlp(W1: "f64[h, d]", b1: "f64[h]", W2: "f64[k, h]", b2: "f64[k]", X: "f64[m, d]", Y: "f64[m, k]"):  # noqa: F821
    H = np.tanh(X @ W1.T + b1)
    out = H @ W2.T + b2
    return np.sum((out - Y) ** 2) / X.shape[0]


def softmax(W: "f64[k, d]", b: "f64[k]", X: "f64[m, d]", Y: "f64[m, k]"):  # noqa: F821
    z = X @ W.T + b
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * logp) / X.shape[0]


# The same objectives as they are usually written: no annotations. s2sad infers the ranks from the
# code (``X @ W1.T`` makes ``X`` and ``W1`` matrices) and writes the biases' adjoints reduced to
# whatever shape they are given.
def mlp_plain(W1, b1, W2, b2, X, Y):
    H = np.tanh(X @ W1.T + b1)
    out = H @ W2.T + b2
    return np.sum((out - Y) ** 2) / X.shape[0]


def softmax_plain(W, b, X, Y):
    z = X @ W.T + b
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * logp) / X.shape[0]


@dataclass
class Objective:
    name: str
    fn: Callable
    wrt: list[str]
    shapes: dict[str, tuple[int, ...]]  # every parameter's shape at full size
    quick: dict[str, tuple[int, ...]]  # and at --quick / --check size


def _sizes(m: int, d: int, h: int, k: int) -> dict[str, tuple[int, ...]]:
    return {"W1": (h, d), "b1": (h,), "W2": (k, h), "b2": (k,), "X": (m, d), "Y": (m, k)}


def _softmax_sizes(m: int, d: int, k: int) -> dict[str, tuple[int, ...]]:
    return {"W": (k, d), "b": (k,), "X": (m, d), "Y": (m, k)}


OBJECTIVES = {
    "mlp": Objective("mlp", mlp, ["W1", "b1", "W2", "b2"], _sizes(256, 784, 256, 10), _sizes(8, 6, 5, 3)),
    "softmax": Objective("softmax", softmax, ["W", "b"], _softmax_sizes(512, 256, 100), _softmax_sizes(7, 5, 4)),
    "mlp_plain": Objective(
        "mlp_plain", mlp_plain, ["W1", "b1", "W2", "b2"], _sizes(256, 784, 256, 10), _sizes(8, 6, 5, 3)
    ),
    "softmax_plain": Objective(
        "softmax_plain", softmax_plain, ["W", "b"], _softmax_sizes(512, 256, 100), _softmax_sizes(7, 5, 4)
    ),
}


def make_data(obj: Objective, quick: bool, rng: np.random.Generator) -> dict[str, np.ndarray]:
    shapes = obj.quick if quick else obj.shapes
    data = {name: rng.normal(scale=0.5, size=shape) for name, shape in shapes.items()}
    m, k = shapes["Y"]
    data["Y"] = np.eye(k)[rng.integers(0, k, size=m)] if obj.name.startswith("softmax") else data["Y"]
    return data


# ----------------------------------------------------------------------------- gradients
def s2sad_gradient(obj: Objective, target: str = "py") -> Callable:
    """The generated gradient, compiled from its source text (``numba``: written to a fresh
    folder and imported from there, as a user's module is, so that Numba compiles it anew and
    may keep what it compiles; its first call compiles)."""
    source = "import numpy as np\n\n\n" + inspect.getsource(obj.fn)
    text = pipeline.gradient_source(source, "numpy_suite.py", obj.name, obj.wrt, target)
    if target == "numba":
        import importlib.util
        import tempfile

        path = Path(tempfile.mkdtemp(prefix="s2sad_numpy_suite_")) / f"grad_{obj.name}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        grad = getattr(module, f"grad_{obj.name}")
    else:
        namespace: dict = {}
        exec(compile(text, f"<grad_{obj.name}>", "exec"), namespace)
        grad = namespace[f"grad_{obj.name}"]
    params = list(inspect.signature(obj.fn).parameters)

    def call(data: dict[str, np.ndarray], shadows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        args = []
        for p in params:
            args.append(data[p])
            if p in shadows:
                shadows[p].fill(0.0)
                args.append(shadows[p])
        grad(*args)
        return shadows

    return call


def autograd_gradient(obj: Objective):
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None
    fn = _rebind(obj.fn, anp)
    params = list(inspect.signature(obj.fn).parameters)
    g = autograd.grad(lambda wrt, rest: fn(**wrt, **rest))
    return lambda data: g({p: data[p] for p in obj.wrt}, {p: data[p] for p in params if p not in obj.wrt})


def jax_gradient(obj: Objective):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    fn = _rebind(obj.fn, jnp)
    params = list(inspect.signature(obj.fn).parameters)
    g = jax.jit(jax.grad(lambda wrt, rest: fn(**wrt, **rest)))

    def call(data):
        out = g({p: data[p] for p in obj.wrt}, {p: data[p] for p in params if p not in obj.wrt})
        jax.block_until_ready(out)
        return out

    return call


def _rebind(fn: Callable, np_module) -> Callable:
    """``fn`` with its ``np`` replaced by another NumPy-compatible module (autograd's, jax's)."""
    import types

    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": np_module}, fn.__name__)


# ----------------------------------------------------------------------------- checking
def check(obj: Objective, rng: np.random.Generator) -> list[str]:
    """Mismatches between the s2sad gradient and central differences (empty: all agree)."""
    data = make_data(obj, quick=True, rng=rng)
    shadows = {p: np.zeros_like(data[p]) for p in obj.wrt}
    got = s2sad_gradient(obj)(data, shadows)
    problems = []
    h = 1e-6
    for p in obj.wrt:
        for index in [tuple(rng.integers(0, n) for n in data[p].shape) for _ in range(4)]:
            plus, minus = {**data, p: data[p].copy()}, {**data, p: data[p].copy()}
            plus[p][index] += h
            minus[p][index] -= h
            fd = (obj.fn(**plus) - obj.fn(**minus)) / (2 * h)
            if abs(fd - got[p][index]) > 1e-6 * max(1.0, abs(fd)):
                problems.append(f"{obj.name}: d{p}{list(index)} = {got[p][index]:.9g}, central difference {fd:.9g}")
    return problems


def run(names: list[str], quick: bool, budget: float, numba: bool = False) -> list[str]:
    rows = [f"{'objective':<14} {'primal':>10} {'s2sad':>10} {'ratio':>6} "
            + (f"{'numba':>10} {'ratio':>6} {'compile':>8} " if numba else "")
            + f"{'autograd':>10} {'ratio':>6} {'jax.jit':>10} {'ratio':>6}"]
    rng = np.random.default_rng(0)
    for name in names:
        obj = OBJECTIVES[name]
        data = make_data(obj, quick, rng)
        shadows = {p: np.zeros_like(data[p]) for p in obj.wrt}
        ours = s2sad_gradient(obj)
        calls = [lambda: obj.fn(**data), lambda: ours(data, shadows)]
        compiled = 0.0
        if numba:  # the Numba output: its first call compiles, then it is timed with the others
            jitted = s2sad_gradient(obj, "numba")
            t0 = time.perf_counter()
            jitted(data, shadows)
            compiled = time.perf_counter() - t0
            calls.append(lambda: jitted(data, shadows))
        peers = [autograd_gradient(obj), jax_gradient(obj)]
        calls += [(lambda other=other: other(data)) for other in peers if other is not None]
        times = interleaved_cpu_times(calls, budget)
        primal, grad = times[:2]
        cells = [f"{name:<14} {primal * 1e3:>8.3f}ms {grad * 1e3:>8.3f}ms {grad / primal:>6.2f}"]
        rest = iter(times[2:])
        if numba:
            t = next(rest)
            cells.append(f"{t * 1e3:>8.3f}ms {t / primal:>6.2f} {compiled:>7.1f}s")
        for other in peers:
            if other is None:
                cells.append(f"{'skipped: not installed':>17}")
            else:
                t = next(rest)
                cells.append(f"{t * 1e3:>8.3f}ms {t / primal:>6.2f}")
        rows.append(" ".join(cells))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    ap.add_argument("--check", action="store_true", help="compare with central differences and exit")
    ap.add_argument("--only", default=",".join(OBJECTIVES), help="comma-separated objectives")
    ap.add_argument("--time", type=float, default=0.3, help="seconds of repeated calls per measurement")
    ap.add_argument("--numba", action="store_true",
                    help="also time the --target numba gradient, and its compilation (its first call)")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in OBJECTIVES]
    if unknown:
        print(f"unknown objective(s) {', '.join(unknown)}; available: {', '.join(OBJECTIVES)}", file=sys.stderr)
        return 2
    try:
        if args.check:
            problems = [p for n in names for p in check(OBJECTIVES[n], np.random.default_rng(1))]
            print("\n".join(problems) if problems else f"gradients agree with central differences: {', '.join(names)}")
            return 1 if problems else 0
        print("\n".join(run(names, args.quick, args.time, args.numba)))
    except DiagnosticError as e:
        print(e.render(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
