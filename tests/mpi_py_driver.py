"""Run under mpirun: check a Python gradient of a distributed function against central
differences of the whole distributed program (tests/mpirun.py says how, for C).

    mpirun -np N python tests/mpi_py_driver.py CASE_JSON INPUT_PY GRADIENT_PY

Every rank samples its own inputs (a generator seeded by its rank), calls the gradient once
(collectively), then for every rank q and every element of every --wrt array runs the whole
primal twice with that element of rank q moved by +-h, sums J over the ranks, and compares
the central difference with rank q's gradient. Rank 0 prints the largest relative error; the
run exits 1 where it is over the case's tolerance.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys

import numpy as np
from mpi4py import MPI


def load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def put(inputs: dict, name: str, k: int, value: float) -> None:
    """Element ``k`` of the input ``name`` (an array's, or the number itself) set to ``value``."""
    if isinstance(inputs[name], np.ndarray):
        inputs[name].flat[k] = value
    else:
        inputs[name] = value


def main() -> int:
    case = json.loads(open(sys.argv[1]).read())
    primal = getattr(load(sys.argv[2], "primal_input"), case["func"])
    grad = getattr(load(sys.argv[3], "gradient_output"), f"grad_{case['func']}")
    comm = MPI.COMM_WORLD
    rng = np.random.default_rng(1234 + 7919 * comm.rank)
    inputs, seeds = {}, {}
    for p in case["params"]:
        if p["kind"] == "array":
            inputs[p["name"]] = rng.uniform(p.get("low", -1.0), p.get("high", 1.0), p["shape"])
            seeds[p["name"]] = rng.uniform(-1.0, 1.0, p["shape"])
        elif p["kind"] == "int":
            inputs[p["name"]] = p["value"]
        elif p["kind"] == "comm":
            inputs[p["name"]] = comm
        else:
            inputs[p["name"]] = float(rng.uniform(p.get("low", -1.0), p.get("high", 1.0)))
    seed_return = float(rng.uniform(0.5, 1.5))
    written = set(case.get("written", []))

    def objective() -> float:
        args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
        value = primal(**args)
        mine = seed_return * value if value is not None else 0.0
        mine += sum(float(np.sum(seeds[k] * args[k])) for k in written)
        return comm.allreduce(mine, op=MPI.SUM)

    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    shadows = {k: (seeds[k].copy() if k in written else np.zeros_like(v))
               for k, v in inputs.items() if isinstance(v, np.ndarray)}
    call = {}
    for name in inspect.signature(grad).parameters:
        if name in args:
            call[name] = args[name]
        elif name.startswith("d_") and name[2:] in shadows:
            call[name] = shadows[name[2:]]
        elif name == "d_return":
            call[name] = seed_return
    returned = grad(**call)  # the adjoints of the scalar --wrt parameters, in order
    scalars = [name for name in case["wrt"] if not isinstance(inputs[name], np.ndarray)]
    if len(scalars) == 1:
        returned = (returned,)
    adjoints = {name: np.array([float(r)]) for name, r in zip(scalars, returned or ())}
    adjoints.update(shadows)
    worst, checked = 0.0, 0
    for q in range(comm.size):
        for name in case["wrt"]:
            size = inputs[name].size if isinstance(inputs[name], np.ndarray) else 1
            for k in range(size):
                keep = inputs[name].flat[k] if size > 1 or isinstance(inputs[name], np.ndarray) else inputs[name]
                h = 1e-6 * max(1.0, abs(keep))
                values = []
                for step in (h, -h):
                    if comm.rank == q:
                        put(inputs, name, k, keep + step)
                    values.append(objective())
                    if comm.rank == q:
                        put(inputs, name, k, keep)
                if comm.rank == q:
                    fd = (values[0] - values[1]) / (2 * h)
                    worst = max(worst, abs(fd - adjoints[name].flat[k]) / max(1.0, abs(fd)))
                    checked += 1
    worst = comm.allreduce(worst, op=MPI.MAX)
    checked = comm.allreduce(checked, op=MPI.SUM)
    if comm.rank == 0:
        print(f"ranks {comm.size} derivatives {checked} worst {worst:.3e}")
    return int(worst > case.get("rtol", 1e-6) or checked == 0)


if __name__ == "__main__":
    sys.exit(main())
