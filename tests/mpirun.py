"""Run a C gradient of a distributed program under a real MPI and check it against central
differences of the whole program.

A distributed program's function ``f`` runs on every rank, each with its own inputs; what it
differentiates is ``J = sum over ranks r of (d_return_r * f_r + <seed_r, a_r>)`` (``a`` the
arrays f writes, as f leaves them), a function of every rank's inputs. The derivative of J by
an input of rank ``q`` is what rank q's gradient must hold. ``driver_source`` writes a C main
that, on each rank, fills the inputs from a generator seeded by the rank, calls ``grad_f`` once
(collectively), then, for every rank q and every element of every --wrt input, runs the whole
primal twice (collectively) with that element of rank q moved by +-h, sums J over the ranks
(MPI_Allreduce) and compares the central difference with rank q's gradient. Rank 0 prints
the largest relative error; the program exits 1 where it is over the tolerance.

``run_case`` compiles input.c, the gradient and the driver with ``mpicc -std=c99 -Wall
-Wextra -Werror`` and runs it with ``mpirun --oversubscribe -np N`` (``MPI`` says why that is
impossible, where it is).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

# Open MPI refuses to start as root unless told; CI runs as root in a container.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}


# Where scripts/bootstrap.sh installs Open MPI's wheel when apt-get cannot: beside this Python.
_VENV_BIN = str(Path(sys.executable).parent)


def _path() -> str:
    return os.environ.get("PATH", "") + os.pathsep + _VENV_BIN


def mpi_env(**extra: str) -> dict[str, str]:
    """The environment MPI programs are built and run in (Open MPI's tools found, root allowed)."""
    return dict(os.environ, PATH=_path(), **MPI_ENV, **extra)


@functools.lru_cache(maxsize=None)
def missing_mpi() -> Optional[str]:
    """Why MPI programs cannot be built and run here, or None."""
    for tool in ("mpicc", "mpirun"):
        if shutil.which(tool, path=_path()) is None:
            return (f"{tool} is not installed (scripts/bootstrap.sh test installs Open MPI, with apt-get or "
                    "from the package index)")
    return None


@dataclass
class Param:
    name: str
    kind: str  # "array" (of double), "int", "float", "comm" (MPI_COMM_WORLD is passed)
    size: int = 0  # an array's elements
    value: float = 0.0  # an int's (or a non-wrt float's) value
    low: float = -1.0
    high: float = 1.0


def params_of(case: dict) -> list[Param]:
    out = []
    for p in case["params"]:
        if p["kind"] == "array":
            size = 1
            for d in p["shape"]:
                size *= d
            out.append(Param(p["name"], "array", size, low=p.get("low", -1.0), high=p.get("high", 1.0)))
        elif p["kind"] in ("int", "comm"):
            out.append(Param(p["name"], p["kind"], value=p.get("value", 0)))
        else:
            out.append(Param(p["name"], "float", low=p.get("low", -1.0), high=p.get("high", 1.0)))
    return out


def declaration(code: str, name: str) -> tuple[str, str, list[str]]:
    """The declaration (``double f(int n, double x[n])``), the return type and the parameter names
    of the function ``name`` defined in ``code``."""
    m = re.search(rf"^(\w[\w ]*?)\s*\b{name}\(", code, re.M)
    assert m is not None, f"no definition of {name}"
    depth, k = 1, m.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(code[k], 0)
        k += 1
    params, part, depth = [], "", 0
    for ch in code[m.end():k - 1]:
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            params.append(part)
            part = ""
        else:
            part += ch
    params.append(part)
    names = [re.match(r"[^\[]*?(\w+)\s*(\[|$)", p.strip()).group(1)  # type: ignore[union-attr]
             for p in params if p.strip() and p.strip() != "void"]
    return " ".join(code[m.start():k].split()), m.group(1).split()[-1], names


def argument(p: Param) -> str:
    """What the driver passes for the parameter ``p`` (an array's working copy, a number)."""
    if p.kind == "comm":
        return "MPI_COMM_WORLD"
    # (an array through void *: the parameter may be declared double u[n][m])
    if p.kind == "array":
        return f"(void *)work_{p.name}"
    return f"in_{p.name}" if p.kind == "float" else str(int(p.value))


def driver_source(case: dict, primal_code: str, grad_code: str) -> str:
    func = case["func"]
    params = params_of(case)
    by_name = {p.name: p for p in params}
    wrt = case["wrt"]
    written = set(case.get("written", []))
    primal_decl, result, primal_names = declaration(primal_code, func)
    grad_decl, _, grad_names = declaration(grad_code, f"grad_{func}")
    arrays = [p for p in params if p.kind == "array"]
    floats = [p for p in params if p.kind == "float"]
    lines = [f"#include <{h}>" for h in ("math.h", "mpi.h", "stdio.h", "stdlib.h", "string.h")]
    lines += ["", f"{primal_decl};", f"{grad_decl};", "",
             "static unsigned state;",
             "static double uniform(double lo, double hi) {",
             "    state = state * 1103515245u + 12345u;",
             "    return lo + (hi - lo) * (double)((state >> 8) & 0xffffffu) / 16777216.0;",
             "}", ""]
    for p in arrays:
        lines += [f"static double in_{p.name}[{p.size}], work_{p.name}[{p.size}], seed_{p.name}[{p.size}], "
                  f"d_{p.name}_[{p.size}];"]
    for p in floats:
        lines += [f"static double in_{p.name}" + (f", d_{p.name}_;" if f"d_{p.name}" in grad_names else ";")]
    lines += ["static double seed_return;", ""]
    # J: the whole program's objective, every rank's part summed
    call_args = [argument(by_name[n]) for n in primal_names]
    lines += ["static double objective(void) {"]
    for p in arrays:
        lines += [f"    memcpy(work_{p.name}, in_{p.name}, sizeof work_{p.name});"]
    value = f"{func}({', '.join(call_args)})"
    lines += [f"    double mine = seed_return * {value};" if result != "void" else
              f"    {value};\n    double mine = 0.0;"]
    for p in arrays:
        if p.name in written:
            lines += [f"    for (int k = 0; k < {p.size}; k++) mine += seed_{p.name}[k] * work_{p.name}[k];"]
    lines += ["    double all = 0.0;", "    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);",
              "    return all;", "}", ""]
    # the gradient, once
    grad_args = []
    for n in grad_names:
        if n in by_name:
            grad_args.append(argument(by_name[n]))
        elif n == "d_return":
            grad_args.append("seed_return")
        elif n.startswith("d_") and n[2:] in by_name:
            p = by_name[n[2:]]
            grad_args.append(f"(void *)d_{p.name}_" if p.kind == "array" else f"&d_{p.name}_")
        else:
            raise AssertionError(f"grad_{func}: unexpected parameter {n}")
    lines += ["int main(int argc, char **argv) {", "    MPI_Init(&argc, &argv);", "    int rank, size;",
              "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);", "    MPI_Comm_size(MPI_COMM_WORLD, &size);",
              "    state = 1234u + 7919u * (unsigned)rank;"]
    for p in arrays:
        lines += [f"    for (int k = 0; k < {p.size}; k++) in_{p.name}[k] = uniform({p.low!r}, {p.high!r});",
                  f"    for (int k = 0; k < {p.size}; k++) seed_{p.name}[k] = uniform(-1.0, 1.0);"]
    for p in floats:
        lines += [f"    in_{p.name} = uniform({p.low!r}, {p.high!r});"]
    lines += ["    seed_return = uniform(0.5, 1.5);"]
    for p in arrays:
        lines += [f"    memcpy(work_{p.name}, in_{p.name}, sizeof work_{p.name});",
                  f"    memcpy(d_{p.name}_, seed_{p.name}, sizeof d_{p.name}_);" if p.name in written else
                  f"    memset(d_{p.name}_, 0, sizeof d_{p.name}_);"]
    lines += [f"    grad_{func}({', '.join(grad_args)});", "    double worst = 0.0;", "    int checked = 0;",
              "    for (int q = 0; q < size; q++) {"]
    for name in wrt:
        p = by_name[name]
        if p.kind == "array":
            lines += [f"        for (int k = 0; k < {p.size}; k++) {{",
                      f"            double keep = in_{name}[k], h = 1e-6 * fmax(1.0, fabs(keep));",
                      f"            if (rank == q) in_{name}[k] = keep + h;",
                      "            double up = objective();",
                      f"            if (rank == q) in_{name}[k] = keep - h;",
                      "            double down = objective();",
                      f"            if (rank == q) in_{name}[k] = keep;",
                      "            double fd = (up - down) / (2.0 * h);",
                      f"            if (rank == q) {{ double e = fabs(fd - d_{name}_[k]) / fmax(1.0, fabs(fd)); "
                      "if (e > worst) worst = e; checked++; }",
                      "        }"]
        else:
            lines += ["        {",
                      f"            double keep = in_{name}, h = 1e-6 * fmax(1.0, fabs(keep));",
                      f"            if (rank == q) in_{name} = keep + h;",
                      "            double up = objective();",
                      f"            if (rank == q) in_{name} = keep - h;",
                      "            double down = objective();",
                      f"            if (rank == q) in_{name} = keep;",
                      "            double fd = (up - down) / (2.0 * h);",
                      f"            if (rank == q) {{ double e = fabs(fd - d_{name}_) / fmax(1.0, fabs(fd)); "
                      "if (e > worst) worst = e; checked++; }",
                      "        }"]
    tol = case.get("rtol", 1e-6)
    lines += ["    }",
              "    double all = 0.0;", "    int total = 0;",
              "    MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);",
              "    MPI_Allreduce(&checked, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);",
              '    if (rank == 0) printf("ranks %d derivatives %d worst %.3e\\n", size, total, all);',
              "    MPI_Finalize();",
              f"    return all > {tol!r} || total == 0;", "}", ""]
    return "\n".join(lines)


SANITIZE = ["-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]


def run_python_case(case: dict, folder: Path, grad_code: str, ranks: int, work: Path, timeout: float = 180.0) -> str:
    """Run the Python gradient ``grad_code`` of ``folder``'s input.py on ``ranks`` ranks against
    central differences of the whole program (tests/mpi_py_driver.py); its line of output."""
    (work / "case.json").write_text(json.dumps(case))
    (work / "gradient.py").write_text(grad_code)
    driver = Path(__file__).resolve().parent / "mpi_py_driver.py"
    run = subprocess.run(["mpirun", "--oversubscribe", "-np", str(ranks), sys.executable, str(driver),
                          str(work / "case.json"), str(folder / "input.py"), str(work / "gradient.py")], cwd=work,
                         env=mpi_env(), capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}\n{run.stderr}"
    return run.stdout.strip()


@functools.lru_cache(maxsize=None)
def missing_mpi4py() -> Optional[str]:
    """Why Python MPI programs cannot run here, or None."""
    why = missing_mpi()
    if why:
        return why
    # In a process of its own: importing mpi4py's MPI starts MPI in this one, whose variables
    # every mpirun started from it would then inherit (and take itself for a rank).
    probe = subprocess.run([sys.executable, "-c", "from mpi4py import MPI"], capture_output=True, text=True)
    if probe.returncode != 0:  # (not installed; or installed, and no MPI library it can load)
        return f"mpi4py cannot be imported ({probe.stderr.strip().splitlines()[-1:]}); scripts/bootstrap.sh " \
            "test installs it"
    return None


def run_case(case: dict, folder: Path, primal_code: str, grad_code: str, ranks: int, work: Path,
             timeout: float = 120.0, sanitize: bool = False) -> str:
    """Build and run the check on ``ranks`` ranks; its line of output (AssertionError on failure).
    ``sanitize``: built with AddressSanitizer and UBSan, so an out-of-bounds access or undefined
    behaviour fails the run (leaks are not reported: MPI's own allocations would be)."""
    (work / "input.c").write_text(primal_code)
    (work / "grad.c").write_text(grad_code)
    (work / "driver.c").write_text(driver_source(case, primal_code, grad_code))
    for header in folder.glob("*.h"):
        shutil.copy(header, work / header.name)
    exe = work / "check"
    checks = SANITIZE if sanitize else []
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", *checks]
    env = mpi_env(ASAN_OPTIONS="detect_leaks=0")
    # (the input's own pragmas, s2sad's checkpoint schedules, are for s2sad)
    for source, extra in (("input.c", ["-Wno-unknown-pragmas"]), ("grad.c", []), ("driver.c", [])):
        build = subprocess.run(["mpicc", *flags, *extra, "-c", source], cwd=work, env=env, capture_output=True,
                               text=True)
        assert build.returncode == 0, build.stderr
    build = subprocess.run(["mpicc", *checks, "-o", str(exe), "input.o", "grad.o", "driver.o", "-lm"], cwd=work,
                           env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run(["mpirun", "--oversubscribe", "-np", str(ranks), str(exe)], cwd=work, env=env,
                         capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}\n{run.stderr}"
    return run.stdout.strip()
