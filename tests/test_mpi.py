"""Distributed programs: gradients of C and Python functions that communicate over MPI.

Each folder golden/mpi/<case>/ holds ``input.c`` (a function every rank runs, communicating
through ``<mpi.h>``), ``case.json`` (as golden/c's: the function, ``--wrt``, the parameters
every rank samples, ``written``) and ``expected.c``, the gradient ``--target c`` writes
(``pytest --update-golden`` rewrites it). The gradient, at -O2 and -O0, is compiled with
``mpicc -std=c99 -Wall -Wextra -Werror`` beside the primal and a driver (tests/mpirun.py), and
run under ``mpirun`` on 2 ranks (built with AddressSanitizer and UBSan) and 4, where it must
match central differences of the whole distributed program (every rank's inputs moved in turn,
the objective summed over the ranks).

golden/mpi_py/<case>/ holds the same for Python with mpi4py (``input.py``, ``expected.py``, held
to ``ruff check`` and ``ruff format --check``), each gradient run under ``mpirun`` on 2 and 4
ranks by tests/mpi_py_driver.py.

Where no MPI can be installed the runs are skipped with the reason (scripts/bootstrap.sh test
installs Open MPI, with apt-get or from the package index, and mpi4py); what needs no MPI (the
outputs, the located errors) runs everywhere.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from golden_cases import GOLDEN, compare_with_golden
from mpirun import missing_mpi, missing_mpi4py, run_case, run_python_case

from s2sad import pipeline
from s2sad.diagnostics import DiagnosticError
from s2sad.ssa.attrs import parse_schedule

MPI_GOLDEN = GOLDEN / "mpi"
CASES = sorted(p.name for p in MPI_GOLDEN.iterdir() if (p / "case.json").exists())
RANKS = (2, 4)


def _case(name: str) -> tuple[dict, Path]:
    folder = MPI_GOLDEN / name
    return json.loads((folder / "case.json").read_text()), folder


def _gradient(name: str, level: int = 2) -> str:
    case, folder = _case(name)
    path = folder / "input.c"
    schedule = case.get("checkpoint")
    options = pipeline.Options(level=level, checkpoint=parse_schedule(schedule) if schedule else None)
    return pipeline.gradient_source(path.read_text(), str(path), case["func"], case["wrt"], "c", options)


@pytest.mark.parametrize("name", CASES)
def test_output(request, name):
    compare_with_golden(request, MPI_GOLDEN / name / "expected.c", _gradient(name))


@pytest.mark.parametrize("ranks", RANKS)
@pytest.mark.parametrize("level", (2, 0))
@pytest.mark.parametrize("name", CASES)
def test_gradient_under_mpirun(tmp_path, name, level, ranks):
    why = missing_mpi()
    if why:
        pytest.skip(why)
    case, folder = _case(name)
    out = run_case(case, folder, (folder / "input.c").read_text(), _gradient(name, level), ranks, tmp_path,
                   sanitize=ranks == 2)
    assert f"ranks {ranks} " in out


PY_GOLDEN = GOLDEN / "mpi_py"
PY_CASES = sorted(p.name for p in PY_GOLDEN.iterdir() if (p / "case.json").exists())


def _py_gradient(name: str) -> str:
    folder = PY_GOLDEN / name
    case = json.loads((folder / "case.json").read_text())
    path = folder / "input.py"
    return pipeline.gradient_source(path.read_text(), str(path), case["func"], case["wrt"], "py")


@pytest.mark.parametrize("name", PY_CASES)
def test_python_output(request, name, tmp_path):
    text = _py_gradient(name)
    compare_with_golden(request, PY_GOLDEN / name / "expected.py", text)
    (tmp_path / "grad.py").write_text(text)
    for check in (["check"], ["format", "--check"]):
        lint = subprocess.run([sys.executable, "-m", "ruff", *check, "--isolated", str(tmp_path / "grad.py")],
                              capture_output=True, text=True)
        assert lint.returncode == 0, lint.stdout + lint.stderr


@pytest.mark.parametrize("ranks", RANKS)
@pytest.mark.parametrize("name", PY_CASES)
def test_python_gradient_under_mpirun(tmp_path, name, ranks):
    why = missing_mpi4py()
    if why:
        pytest.skip(why)
    folder = PY_GOLDEN / name
    case = json.loads((folder / "case.json").read_text())
    out = run_python_case(case, folder, _py_gradient(name), ranks, tmp_path)
    assert f"ranks {ranks} " in out


def _error(source: str, wrt: list[str], func: str = "f") -> str:
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(source, "model.c", func, wrt, "c")
    return e.value.render()


HEADER = "#include <mpi.h>\n"


@pytest.mark.parametrize("call, said", [
    ("MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);", "not 'MPI_PROD'"),
    ("MPI_Allreduce(&s, &t, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);", "MPI_FLOAT does not describe"),
    ("MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, n);", "'n' is not a communicator"),
    ("MPI_Recv(&t, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);", "MPI_ANY_SOURCE"),
    ("MPI_Init(0, 0);", "MPI is started once"),
    ("MPI_Put(&s, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, 0);", "does not differentiate through 'MPI_Put'"),
])
def test_located_errors(call, said):
    source = HEADER + ("double f(const double *x, int n, MPI_Comm comm)\n{\n    double s = x[0] * x[1], t = 0.0;\n"
                       f"    {call}\n    return t;\n}}\n")
    text = _error(source, ["x"])
    assert said in text, text
    assert "model.c:5:" in text, text


@pytest.mark.parametrize("body, said, line", [
    ("MPI_Request r;\n    for (int i = 0; i < 2; i++)\n        MPI_Isend(x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r);\n"
     "    MPI_Wait(&r, MPI_STATUS_IGNORE);", "was started in another block", 8),
    ("MPI_Request r[2];\n    int k = n;\n    MPI_Isend(x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r[k]);",
     "at a constant index", 7),
    ("MPI_Request r[2];\n    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);", "'r[0]' holds no request", 6),
])
def test_request_errors(body, said, line):
    source = HEADER + f"double f(double *x, int n)\n{{\n    double t = x[0];\n    {body}\n    return t * x[0];\n}}\n"
    text = _error(source, ["x"])
    assert said in text and f"model.c:{line}:" in text, text


def test_check_and_other_targets_refuse_mpi(tmp_path):
    from s2sad.check import CheckRefused, Settings, check

    case, folder = _case("allreduce_dot")
    path = folder / "input.c"
    with pytest.raises(CheckRefused, match="communicates over MPI: check it on several ranks, with --ranks N"):
        check(path.read_text(), str(path), "dist_dot", ["x"], "c", pipeline.Options(), Settings())
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(path.read_text(), str(path), "dist_dot", ["x"], "py")
    assert "Python output of a C program's MPI communication is not supported" in e.value.render()


# Rank 0 sends x to rank 1, which uses it; rank 1 sends back constants, which rank 0 drops. The
# buffers of the second message have no adjoints (one depends on no input, the other reaches
# no result), yet both ranks must reverse it as they reverse the first: rank 1's adjoint
# receive waits for rank 0's adjoint send (of zeros).
ONE_SIDED_USE = HEADER + """double f(const double *x, int n)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double got[4], junk[4], c[4] = {1.0, 2.0, 3.0, 4.0};
    double s = 0.0;
    if (rank == 0) {
        MPI_Send(x, n, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
        MPI_Recv(junk, n, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(got, n, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(c, n, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            s += got[i] * x[i];
    }
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}
"""


def test_every_rank_reverses_the_same_calls(tmp_path):
    why = missing_mpi()
    if why:
        pytest.skip(why)
    case = {"func": "f", "wrt": ["x"], "written": [],
            "params": [{"name": "x", "kind": "array", "shape": [4]}, {"name": "n", "kind": "int", "value": 4}]}
    grad = pipeline.gradient_source(ONE_SIDED_USE, "model.c", "f", ["x"], "c")
    assert "MPI_Send(d_junk_none" in grad and "MPI_Recv(d_c_in" in grad, grad
    out = run_case(case, tmp_path, ONE_SIDED_USE, grad, 2, tmp_path, timeout=60)
    assert "ranks 2 " in out


PY_HEADER = "import numpy as np\nfrom mpi4py import MPI\n\n\n"


@pytest.mark.parametrize("body, said, line", [
    ("comm.Recv(x[0:1], tag=0)", "takes any source", 7),
    ("comm.Allreduce(x, y, op=MPI.PROD)", "not 'MPI.PROD'", 7),
    ("comm.Send(A, dest=0)\n    y[0] = A[0, 1]", "this buffer is an array of 2 dimensions", 7),
    ("comm.Recv(x[0:1], source=MPI.ANY_SOURCE, tag=0)", "leaves the sender to the run", 7),
    ("r = comm.Isend(x, dest=0)\n    MPI.Request.Waitall(reqs)", "a list of requests written out", 8),
    ("comm.Allreduce([x, MPI.FLOAT], y, op=MPI.SUM)", "MPI.FLOAT does not describe this array", 7),
])
def test_python_located_errors(body, said, line):
    source = PY_HEADER + f"def f(x, y, A, comm=MPI.COMM_WORLD):\n    reqs = []\n    {body}\n    return np.sum(x * y)\n"
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(source, "model.py", "f", ["x"], "py")
    text = e.value.render()
    assert said in text and f"model.py:{line}:" in text, text


def test_python_numba_output_refuses_mpi():
    source = (PY_GOLDEN / "allreduce_dot" / "input.py").read_text()
    with pytest.raises(DiagnosticError) as e:
        pipeline.gradient_source(source, "dot.py", "dist_dot", ["x"], "numba")
    text = e.value.render()
    assert "Numba's compiled code cannot call" in text and "dot.py:9:" in text, text


@pytest.mark.parametrize("name", ["heat_isend_irecv", "stencil_2d_checkpointed"])
def test_workspace_gradients_on_three_ranks(tmp_path, name):
    """The same under --workspace (tapes kept by the caller), on an odd number of ranks."""
    why = missing_mpi()
    if why:
        pytest.skip(why)
    case, folder = _case(name)
    path = folder / "input.c"
    schedule = case.get("checkpoint")
    options = pipeline.Options(workspace=True, checkpoint=parse_schedule(schedule) if schedule else None)
    grad = pipeline.gradient_source(path.read_text(), str(path), case["func"], case["wrt"], "c", options)
    assert f"grad_{case['func']}_ws(" in grad
    out = run_case(case, folder, path.read_text(), grad, 3, tmp_path, sanitize=True)
    assert "ranks 3 " in out




@pytest.mark.parametrize("path, wrt, sizes, ranks", [
    ("mpi/heat_sendrecv/input.c", "u,k", "u=6,k=6,n=4,steps=3", 2),
    ("mpi/comm_parameter/input.c", "u", "u=6,n=4,sweeps=2", 3),
    ("mpi_py/heat_isend_irecv/input.py", "u,k", "u=6,k=6,steps=2", 2),
    ("mpi_py/bcast_reduce/input.py", "w,x", "w=4,x=4", 3),
])
def test_check_command_runs_a_distributed_program_under_mpirun(path, wrt, sizes, ranks):
    why = missing_mpi4py()
    if why:
        pytest.skip(why)
    run = subprocess.run([sys.executable, "-m", "s2sad", "check", str(GOLDEN / path), "--wrt", wrt, "--sizes", sizes,
                          "--ranks", str(ranks)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{ranks} ranks)" in run.stdout and "all adjoints match central differences" in run.stdout, run.stdout
    assert run.stdout.count("s2sad check:") == 1, run.stdout  # rank 0 speaks for all


def test_check_command_reports_a_mismatch_on_several_ranks_once():
    """Tolerances no floating-point difference meets: every adjoint row a mismatch, exit 1, one table."""
    why = missing_mpi4py()
    if why:
        pytest.skip(why)
    run = subprocess.run([sys.executable, "-m", "s2sad", "check", str(PY_GOLDEN / "heat_sendrecv" / "input.py"),
                          "--wrt", "u,k", "--sizes", "u=6,k=6,steps=2", "--ranks", "2", "--rtol", "1e-15",
                          "--atol", "1e-17"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.count("MISMATCH") == 2 and "mpirun" not in run.stderr, run.stdout + run.stderr
