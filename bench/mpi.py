"""Gradient over primal time of distributed C programs on 1, 2 and 4 MPI ranks.

The cases are golden/mpi's, at sizes where the work is measurable: a dot product by
``MPI_Allreduce``, the 1-D heat equation with its halo exchanged by ``MPI_Sendrecv`` and by
``MPI_Isend``/``MPI_Irecv``/``MPI_Waitall``, and the checkpointed 2-D stencil. Sizes are per
rank (weak scaling: each rank holds the same share). A C driver (written here, built with
``mpicc -O2`` beside the primal and the gradient ``s2sad grad`` writes) fills every rank's
inputs, then times the primal and the gradient in rounds, each round between two barriers and
timed as its slowest rank (``MPI_Wtime``); it prints the best round of each. Ranks beyond the
machine's cores are oversubscribed (``mpirun --oversubscribe``), which slows both alike.

With ``--workspace`` the gradient is ``grad_f_ws`` on one workspace the driver keeps across the
rounds (``s2sad grad --workspace``): its tapes are allocated once, not on every call.

    .venv/bin/python bench/mpi.py [--ranks 1,2,4] [--rounds 5] [--quick] [--workspace]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from mpirun import argument, declaration, missing_mpi, mpi_env, params_of  # noqa: E402

from s2sad import pipeline  # noqa: E402
from s2sad.ssa.attrs import parse_schedule  # noqa: E402

# case -> its sizes per rank: the parameters' values and the arrays' lengths (quick ones after)
CASES = {
    "allreduce_dot": ({"n": 2_000_000}, {"n": 20_000}),
    "heat_sendrecv": ({"n": 200_000, "steps": 50}, {"n": 2_000, "steps": 5}),
    "heat_isend_irecv": ({"n": 200_000, "steps": 50}, {"n": 2_000, "steps": 5}),
    "stencil_2d_checkpointed": ({"rows": 200, "m": 400, "steps": 40}, {"rows": 20, "m": 40, "steps": 5}),
}
# an array's length from the sizes (the cases' own shapes, as their signatures give them)
LENGTHS = {
    "allreduce_dot": lambda s: s["n"],
    "heat_sendrecv": lambda s: s["n"] + 2,
    "heat_isend_irecv": lambda s: s["n"] + 2,
    "stencil_2d_checkpointed": lambda s: (s["rows"] + 2) * s["m"],
}


def driver(case: dict, sizes: dict, length: int, primal_code: str, grad_code: str, rounds: int,
           workspace: bool = False) -> str:
    func = case["func"]
    params = params_of(case)
    for p in params:
        if p.kind == "int":
            p.value = sizes.get(p.name, p.value)
        if p.kind == "array":
            p.size = length
    by_name = {p.name: p for p in params}
    primal_decl, result, primal_names = declaration(primal_code, func)
    grad_decl, _, grad_names = declaration(grad_code, f"grad_{func}")
    arrays = [p for p in params if p.kind == "array"]
    floats = [p for p in params if p.kind == "float"]
    out = [f"#include <{h}>" for h in ("mpi.h", "stdio.h", "stdlib.h", "string.h")]
    ws = f"grad_{func}_workspace"
    kept = [f"typedef struct {ws} {ws};", f"{ws} *{ws}_new(void);", f"void {ws}_free({ws} *ws);",
            grad_decl.replace(f"grad_{func}(", f"grad_{func}_ws({ws} *ws, ", 1) + ";"] if workspace else []
    out += ["", f"{primal_decl};", f"{grad_decl};", *kept, "", "static unsigned state;",
            "static double uniform(double lo, double hi) {", "    state = state * 1103515245u + 12345u;",
            "    return lo + (hi - lo) * (double)((state >> 8) & 0xffffffu) / 16777216.0;", "}", "",
            "static double slowest(double t0) {", "    double t = MPI_Wtime() - t0, all;",
            "    MPI_Allreduce(&t, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);", "    return all;", "}", ""]
    out += ["int main(int argc, char **argv) {", "    MPI_Init(&argc, &argv);", "    int rank;",
            "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);", "    state = 1234u + 7919u * (unsigned)rank;"]
    for p in arrays:
        out += [f"    double *in_{p.name} = malloc({p.size} * sizeof(double));",
                f"    double *work_{p.name} = malloc({p.size} * sizeof(double));",
                f"    double *d_{p.name}_ = malloc({p.size} * sizeof(double));",
                f"    for (long k = 0; k < {p.size}; k++) in_{p.name}[k] = uniform({p.low!r}, {p.high!r});"]
    for p in floats:
        out += [f"    double in_{p.name} = uniform({p.low!r}, {p.high!r}), d_{p.name}_ = 0.0;"]
    grad_args = []
    for n in grad_names:
        if n in by_name:
            grad_args.append(argument(by_name[n]))
        elif n == "d_return":
            grad_args.append("1.0")
        else:
            p = by_name[n[2:]]
            grad_args.append(f"d_{p.name}_" if p.kind == "array" else f"&d_{p.name}_")
    reset = [f"        memcpy(work_{p.name}, in_{p.name}, {p.size} * sizeof(double));" for p in arrays]
    clear = [f"        memset(d_{p.name}_, 0, {p.size} * sizeof(double));" for p in arrays]
    primal_call = f"{func}({', '.join(argument(by_name[n]) for n in primal_names)})"
    call = f"grad_{func}_ws(ws, {', '.join(grad_args)})" if workspace else f"grad_{func}({', '.join(grad_args)})"
    out += ([f"    {ws} *ws = {ws}_new();"] if workspace else [])
    out += ["    double best_primal = 1e30, best_grad = 1e30, sink = 0.0;",
            f"    for (int round = 0; round < {rounds}; round++) {{", *reset,
            "        MPI_Barrier(MPI_COMM_WORLD);", "        double t0 = MPI_Wtime();",
            f"        {'sink += ' if result != 'void' else ''}{primal_call};",
            "        double t = slowest(t0);", "        if (t < best_primal) best_primal = t;", *reset, *clear,
            "        MPI_Barrier(MPI_COMM_WORLD);", "        t0 = MPI_Wtime();",
            f"        {call};",
            "        t = slowest(t0);", "        if (t < best_grad) best_grad = t;", "    }",
            '    if (rank == 0) printf("%.6f %.6f %g\\n", best_primal, best_grad, sink);',
            *([f"    {ws}_free(ws);"] if workspace else []), "    MPI_Finalize();",
            "    return 0;", "}", ""]
    return "\n".join(out)


def measure(name: str, sizes: dict, ranks: list[int], rounds: int, work: Path,
            workspace: bool = False) -> dict[int, tuple[float, float]]:
    folder = ROOT / "golden" / "mpi" / name
    case = json.loads((folder / "case.json").read_text())
    source = (folder / "input.c").read_text()
    schedule = case.get("checkpoint")
    options = pipeline.Options(checkpoint=parse_schedule(schedule) if schedule else None, workspace=workspace)
    grad = pipeline.gradient_source(source, str(folder / "input.c"), case["func"], case["wrt"], "c", options)
    d = work / name
    d.mkdir()
    (d / "input.c").write_text(source)
    (d / "grad.c").write_text(grad)
    (d / "driver.c").write_text(driver(case, sizes, LENGTHS[name](sizes), source, grad, rounds, workspace))
    env = mpi_env()
    subprocess.run(["mpicc", "-std=c99", "-O2", "-Wno-unknown-pragmas", "-o", "bench", "input.c", "grad.c",
                    "driver.c", "-lm"], cwd=d, env=env, check=True)
    times = {}
    for n in ranks:
        run = subprocess.run(["mpirun", "--oversubscribe", "-np", str(n), "./bench"], cwd=d, env=env,
                             capture_output=True, text=True, check=True)
        primal, gradient = map(float, run.stdout.split()[:2])
        times[n] = (primal, gradient)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", default="1,2,4", help="the numbers of ranks, comma-separated")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes (seconds, for smoke tests)")
    ap.add_argument("--workspace", action="store_true", help="time grad_f_ws on one workspace kept across rounds")
    args = ap.parse_args()
    why = missing_mpi()
    if why:
        sys.exit(f"bench/mpi.py: {why}")
    ranks = [int(r) for r in args.ranks.split(",")]
    kept = ", grad_f_ws on a kept workspace" if args.workspace else ""
    print(f"gradient / primal time per case, sizes per rank; {os.cpu_count()} cores, best of {args.rounds} "
          f"rounds{kept}")
    print(f"{'case':26s} {'sizes per rank':28s} " + " ".join(f"{f'{n} rank' + ('s' if n > 1 else ''):>22s}"
                                                        for n in ranks))
    with tempfile.TemporaryDirectory() as tmp:
        for name, (full, quick) in CASES.items():
            sizes = quick if args.quick else full
            times = measure(name, sizes, ranks, args.rounds, Path(tmp), args.workspace)
            cells = [f"{g / p:5.2f}x ({p * 1e3:7.1f} ms)" for p, g in (times[n] for n in ranks)]
            spelled = ", ".join(f"{k}={v}" for k, v in sizes.items())
            print(f"{name:26s} {spelled:28s} " + " ".join(f"{c:>22s}" for c in cells))


if __name__ == "__main__":
    main()
