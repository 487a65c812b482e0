"""Loop benchmarks: s2sad's Numba gradients of plain loop code, against their Numba primals and
the peers' gradients of the same computation written the way each peer wants it (vectorized).

The programs are in bench/loop_programs.py: ``norm`` (examples/norm.py), an explicit 1-D heat
stepper, an LSTM cell run over a sequence, and a pairwise particle energy. For each one the
script times, on the same data:

- the primal, ``numba.njit`` of the function as written;
- the s2sad gradient, ``s2sad grad bench/loop_programs.py --func F --wrt ... --target numba``
  (its forward sweep included);
- ``jax.jit(jax.grad(...))`` of a vectorized version, and PyTorch's ``backward`` of the same, each
  "skipped: not installed" when absent (``pip install jax jaxlib torch`` into the environment
  that runs the script, with numba and numpy).

Every library runs on one thread, times are process CPU times, the tools run in alternation and
each figure is a median (``timing.py``). Usage::

    .venv/bin/python bench/loops.py [--quick] [--only norm,heat,lstm,pairs] [--time 0.3]
    .venv/bin/python bench/loops.py --check    # every gradient against central differences and s2sad's

``--check`` compares s2sad's gradient with central differences of the primal at random
coordinates, and each peer's gradient with s2sad's, and exits with status 1 on a mismatch.
Machines are noisy: quote ratios from one run.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from timing import fmt_time, interleaved_cpu_times, pin_threads

pin_threads()

import numba  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import loop_programs  # noqa: E402
from s2sad import pipeline  # noqa: E402

PROGRAMS = Path(__file__).resolve().parent / "loop_programs.py"


@dataclass
class Case:
    """One program: how to make its data, call the primal and the s2sad gradient on it, and the
    same gradient (of the loss with the same seeds) from a vectorized version for the peers."""

    name: str
    func: str
    wrt: list[str]
    sizes: dict[str, dict[str, int]]  # "full" / "quick" / "check" -> sizes
    data: Callable[[np.random.Generator, dict[str, int]], dict]  # the primal's arguments by name
    primal_args: list[str]  # the primal's parameters in order
    grad_args: list[str]  # the gradient's parameters in order (d_x: a zeroed shadow of x)
    copied: list[str]  # arrays the program updates in place: each call gets a fresh copy
    seeds: dict[str, str]  # a shadow seeded with ones rather than zeros (norm's d_out)
    jax_loss: Optional[Callable] = None  # (jnp, lax, wrt arrays..., rest) -> loss
    torch_loss: Optional[Callable] = None


def _heat_jax(jnp, lax, u, r, steps):
    def step(_, u):
        return u.at[1:-1].set(u[1:-1] + r * (u[:-2] - 2.0 * u[1:-1] + u[2:]))

    return jnp.sum(lax.fori_loop(0, steps, step, u) ** 2)


def _heat_torch(torch, u, r, steps):
    for _ in range(steps):
        u = torch.cat([u[:1], u[1:-1] + r * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return torch.sum(u * u)


def _lstm_steps(np_, sigmoid, W, b, x, h, c, steps, hidden):
    loss = 0.0
    for t in range(steps):
        z = W[:, :hidden] @ x[t] + W[:, hidden:] @ h + b
        ig, fg, og = sigmoid(z[:hidden]), sigmoid(z[hidden:2 * hidden]), sigmoid(z[2 * hidden:3 * hidden])
        c = fg * c + ig * np_.tanh(z[3 * hidden:])
        h = og * np_.tanh(c)
        loss = loss + np_.sum(h * h)
    return loss


def _pairs(np_, x, n, triu):
    diff = x[:, None, :] - x[None, :, :]
    inv = 1.0 / np_.sqrt(np_.sum(diff * diff, axis=2) + 0.01)
    return np_.sum(inv * triu)


CASES = {
    "norm": Case(
        "norm", "norm", ["in"],
        {"full": {"n": 2000}, "quick": {"n": 200}, "check": {"n": 7}},
        lambda rng, s: {"out": np.zeros(s["n"]), "in_": rng.normal(size=s["n"]), "n": s["n"]},
        ["out", "in_", "n"], ["out", "d_out", "in_", "d_in_", "n"], [], {"d_out": "ones"},
        jax_loss=lambda jnp, lax, in_, rest: jnp.sum(in_ / jnp.sqrt(jnp.sum(in_ * in_))),
        torch_loss=lambda torch, in_, rest: torch.sum(in_ / torch.sqrt(torch.sum(in_ * in_))),
    ),
    "heat": Case(
        "heat", "heat", ["u"],
        {"full": {"n": 1000, "steps": 200}, "quick": {"n": 100, "steps": 20}, "check": {"n": 9, "steps": 4}},
        lambda rng, s: {"u": rng.normal(size=s["n"]), "r": 0.25, "steps": s["steps"]},
        ["u", "r", "steps"], ["u", "d_u", "r", "steps"], ["u"], {},
        jax_loss=lambda jnp, lax, u, rest: _heat_jax(jnp, lax, u, rest["r"], rest["steps"]),
        torch_loss=lambda torch, u, rest: _heat_torch(torch, u, rest["r"], rest["steps"]),
    ),
    "lstm": Case(
        "lstm", "lstm", ["W", "b"],
        {"full": {"steps": 50, "hidden": 32}, "quick": {"steps": 5, "hidden": 8}, "check": {"steps": 3, "hidden": 3}},
        lambda rng, s: {
            "W": rng.normal(scale=0.3, size=(4 * s["hidden"], 2 * s["hidden"])),
            "b": rng.normal(scale=0.1, size=4 * s["hidden"]),
            "x": rng.normal(size=(s["steps"], s["hidden"])), "h": np.zeros(s["hidden"]), "c": np.zeros(s["hidden"]),
            "steps": s["steps"], "hidden": s["hidden"],
        },
        ["W", "b", "x", "h", "c", "steps", "hidden"],
        ["W", "d_W", "b", "d_b", "x", "h", "d_h", "c", "d_c", "steps", "hidden"],
        ["h", "c"], {},
        jax_loss=lambda jnp, lax, W, b, rest: _lstm_steps(
            jnp, lambda v: 1.0 / (1.0 + jnp.exp(-v)), W, b, rest["x"], rest["h"], rest["c"], rest["steps"],
            rest["hidden"]),
        torch_loss=lambda torch, W, b, rest: _lstm_steps(
            torch, torch.sigmoid, W, b, rest["x"], rest["h"], rest["c"], rest["steps"], rest["hidden"]),
    ),
    "pairs": Case(
        "pairs", "pair_energy", ["x"],
        {"full": {"n": 500}, "quick": {"n": 50}, "check": {"n": 6}},
        lambda rng, s: {"x": rng.normal(size=(s["n"], 3)), "n": s["n"]},
        ["x", "n"], ["x", "d_x", "n"], [], {},
        jax_loss=lambda jnp, lax, x, rest: _pairs(jnp, x, rest["n"], jnp.triu(jnp.ones((rest["n"], rest["n"])), 1)),
        torch_loss=lambda torch, x, rest: _pairs(
            torch, x, rest["n"], torch.triu(torch.ones((rest["n"], rest["n"]), dtype=x.dtype), 1)),
    ),
}


def numba_primals() -> dict[str, Callable]:
    """Every function of loop_programs.py under ``numba.njit`` (helpers too: ``norm`` calls ``mag``)."""
    namespace: dict = {"__name__": "loop_programs_njit"}
    exec(compile(PROGRAMS.read_text(), str(PROGRAMS), "exec"), namespace)
    for k, v in list(namespace.items()):
        if callable(v) and getattr(v, "__module__", None) == "loop_programs_njit":
            namespace[k] = numba.njit(v)
    return namespace


def load_gradient(case: Case, workdir: Path) -> Callable:
    text = pipeline.gradient_source(PROGRAMS.read_text(), str(PROGRAMS), case.func, case.wrt, "numba",
                                    pipeline.Options(level=2))
    path = workdir / f"grad_{case.func}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"grad_{case.func}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return getattr(module, f"grad_{case.func}")


def _arrays(case: Case, data: dict) -> dict:
    """The gradient's arguments by name: the data (copies of the arrays it updates) and shadows."""
    args = {k: (v.copy() if k in case.copied else v) for k, v in data.items()}
    for name in case.grad_args:
        if name.startswith("d_"):
            shape = np.shape(data[name[2:]])
            args[name] = np.ones(shape) if case.seeds.get(name) == "ones" else np.zeros(shape)
    return args


def s2sad_call(case: Case, gradient: Callable, data: dict) -> Callable[[], dict]:
    """A call of the s2sad gradient on fresh shadows; returns them (the gradient by name)."""
    def call():
        args = _arrays(case, data)
        gradient(*[args[k] for k in case.grad_args])
        return {w: args["d_" + w] for w in _wrt_params(case)}
    return call


def _wrt_params(case: Case) -> list[str]:
    return ["in_" if w == "in" else w for w in case.wrt]


def primal_call(case: Case, primal: Callable, data: dict) -> Callable[[], object]:
    def call():
        args = {k: (v.copy() if k in case.copied else v) for k, v in data.items()}
        return primal(*[args[k] for k in case.primal_args])
    return call


def jax_call(case: Case, data: dict) -> Optional[Callable[[], dict]]:
    try:
        import jax
        import jax.numpy as jnp
        from jax import lax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    names = _wrt_params(case)
    rest = {k: (jnp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in data.items() if k not in names}
    static = {k: v for k, v in rest.items() if not hasattr(v, "shape")}
    arrays = {k: v for k, v in rest.items() if hasattr(v, "shape")}
    grad = jax.jit(jax.grad(lambda wrt, arrs: case.jax_loss(jnp, lax, *wrt, {**arrs, **static}), argnums=0))
    wrt = tuple(jnp.asarray(data[k]) for k in names)

    def call():
        out = jax.block_until_ready(grad(wrt, arrays))
        return {k: np.asarray(g) for k, g in zip(names, out)}
    return call


def torch_call(case: Case, data: dict) -> Optional[Callable[[], dict]]:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    names = _wrt_params(case)
    rest = {k: (torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v)
            for k, v in data.items() if k not in names}

    def call():
        wrt = [torch.tensor(data[k], requires_grad=True) for k in names]
        case.torch_loss(torch, *wrt, rest).backward()
        return {k: w.grad.numpy() for k, w in zip(names, wrt)}
    return call


def check(case: Case, rng: np.random.Generator, workdir: Path, tol: float = 1e-6) -> list[str]:
    """s2sad's gradient against central differences of the primal; each peer's against s2sad's."""
    data = case.data(rng, case.sizes["check"])
    primal = getattr(loop_programs, case.func)  # plain Python: no compile wait for a few calls
    mine = s2sad_call(case, load_gradient(case, workdir), data)()
    seeds = _arrays(case, data)
    lines = []

    def loss(d: dict) -> float:
        args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in d.items()}
        value = primal(*[args[k] for k in case.primal_args])
        if value is None:  # norm: the seeds' inner product with what it writes
            return float(sum(np.sum(seeds[f"d_{k}"] * args[k]) for k in ("out",)))
        return float(value)

    ok = True
    for name, g in mine.items():
        worst = 0.0
        for _ in range(6):
            j = tuple(int(rng.integers(s)) for s in g.shape)
            h = 1e-6 * max(1.0, abs(float(data[name][j])))
            plus, minus = dict(data), dict(data)
            plus[name] = data[name].copy()
            minus[name] = data[name].copy()
            plus[name][j] += h
            minus[name][j] -= h
            fd = (loss(plus) - loss(minus)) / (2 * h)
            worst = max(worst, abs(fd - g[j]) / max(1.0, abs(fd)))
        ok = ok and worst < 1e-5
        lines.append(f"  {case.name:6} d_{name:4} s2sad vs central differences: max rel. error {worst:.2e}"
                     f"  {'ok' if worst < 1e-5 else 'MISMATCH'}")
    for peer, make in (("jax", jax_call), ("torch", torch_call)):
        call = make(case, data)
        if call is None:
            lines.append(f"  {case.name:6} {peer}: skipped: not installed")
            continue
        theirs = call()
        worst = max(float(np.max(np.abs(theirs[k] - mine[k]) / np.maximum(1.0, np.abs(mine[k])))) for k in mine)
        ok = ok and worst < tol
        verdict = "ok" if worst < tol else "MISMATCH"
        lines.append(f"  {case.name:6} {peer} vs s2sad: max rel. difference {worst:.2e}  {verdict}")
    if not ok:
        lines.append("MISMATCH")
    return lines


def run(names: list[str], size: str, budget: float, workdir: Path) -> list[str]:
    rows = [f"{'program':8} {'sizes':22} {'primal':>11} {'s2sad':>11} {'ratio':>6} {'jax.jit':>11} {'ratio':>6} "
            f"{'torch':>11} {'ratio':>6}"]
    rng = np.random.default_rng(0)
    primals = numba_primals()
    for name in names:
        case = CASES[name]
        sizes = case.sizes[size]
        data = case.data(rng, sizes)
        calls = [primal_call(case, primals[case.func], data),
                 s2sad_call(case, load_gradient(case, workdir), data)]
        peers = [jax_call(case, data), torch_call(case, data)]
        times = interleaved_cpu_times(calls + [p for p in peers if p is not None], budget)
        tp, ts = times[:2]
        rest = iter(times[2:])
        cells = []
        for p in peers:
            if p is None:
                cells.append(f"{'skipped':>11} {'':>6}")
            else:
                t = next(rest)
                cells.append(f"{fmt_time(t):>11} {t / tp:6.2f}")
        text = " ".join(f"{k}={v}" for k, v in sizes.items())
        rows.append(f"{name:8} {text:22} {fmt_time(tp):>11} {fmt_time(ts):>11} {ts / tp:6.2f} " + " ".join(cells))
        print(f"  {name}: done", file=sys.stderr, flush=True)
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    ap.add_argument("--check", action="store_true", help="check the gradients, then exit")
    ap.add_argument("--only", default=",".join(CASES), help=f"comma-separated subset of: {','.join(CASES)}")
    ap.add_argument("--time", type=float, default=0.3, help="seconds spent timing each tool")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print(f"loops.py: unknown program {', '.join(unknown)} (choose from {', '.join(CASES)})", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="s2sad_loops_") as tmp:
        if args.check:
            lines = [line for n in names for line in check(CASES[n], np.random.default_rng(1), Path(tmp))]
            print("\n".join(line for line in lines if line != "MISMATCH"))
            bad = "MISMATCH" in lines
            print("some gradients disagree" if bad else "all gradients agree")
            return 1 if bad else 0
        print("\n".join(run(names, "quick" if args.quick else "full", args.time, Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
