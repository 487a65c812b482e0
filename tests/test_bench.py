"""The benchmark scripts run (small sizes): their figures are quoted in the README, so they must keep working."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cbuild import have_gcc

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_c_suite_quick_run_prints_the_ratio_table():
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "c_suite.py"), "--quick"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    header = next(k for k, line in enumerate(lines) if line.startswith("objective"))
    rows = [line.split() for line in lines[header + 1:] if line.strip()]
    assert [row[0] for row in rows[:4]] == ["gmm", "gmm_written", "ba", "lstm"]
    assert all(float(row[-1]) > 0 for row in rows[:4])


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_c_suite_with_workspaces_times_grad_ws_after_checking_it():
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "c_suite.py"), "--quick", "--workspace", "--only",
                        "gmm,lstm", "--time", "0.02"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    header = next(k for k, line in enumerate(lines) if line.startswith("objective"))
    assert lines[header].split()[-2:] == ["grad_ws", "ws/primal"]
    rows = [line.split() for line in lines[header + 1:] if line.strip()]
    assert [row[0] for row in rows] == ["gmm", "lstm"] and all(float(row[-1]) > 0 for row in rows)


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_workspace_bench_prints_faults_per_call():
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "workspace.py"), "--sizes", "3000x4", "--calls", "2",
                        "--rounds", "1"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    row = r.stdout.splitlines()[-1].split()
    assert row[0] == "3000x4" and len(row) == 8 and float(row[3]) > 0 and float(row[6]) > 0


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_c_suite_check_mode_passes():
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "c_suite.py"), "--check"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all gradients match finite differences" in r.stdout


def test_numpy_suite_quick_run_prints_the_ratio_table():
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "numpy_suite.py"), "--quick", "--time", "0.01"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    header = next(k for k, line in enumerate(lines) if line.startswith("objective"))
    rows = [line.split() for line in lines[header + 1:] if line.strip()]
    assert [row[0] for row in rows] == ["mlp", "softmax", "mlp_plain", "softmax_plain"]
    assert all(float(row[3]) > 0 for row in rows)  # the s2sad gradient / primal ratio


def test_numpy_suite_check_mode_passes():
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "numpy_suite.py"), "--check"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gradients agree with central differences: mlp, softmax, mlp_plain, softmax_plain" in r.stdout


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_checkpointing_quick_run_matches_revolve():
    """Every schedule gives store-all's gradient; binomial re-runs what the revolve formula says
    (the script exits 1 otherwise) and keeps far less than store-all."""
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "checkpointing.py"), "--quick"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {line.split()[0]: line.split() for line in r.stdout.splitlines()[2:] if line.strip()}
    assert set(rows) == {"store-all", "recompute", "periodic(100)", "binomial(5)", "binomial(10)", "binomial(20)"}
    assert rows["binomial(20)"][-3] == rows["binomial(20)"][-2]  # measured re-runs == formula
    assert float(rows["binomial(5)"][3]) < 5.0  # % of store-all's peak heap


def _bench_gpu(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "gpu.py"), *args], capture_output=True, text=True,
                          timeout=300)


def test_gpu_bench_says_skipped_without_a_gpu():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import gpu
    finally:
        sys.path.remove(str(ROOT / "bench"))
    if gpu.have_gpu():
        pytest.skip("this machine has a GPU: bench/gpu.py times kernels instead")
    r = _bench_gpu()
    assert r.returncode == 0 and r.stdout == "skipped: no GPU\n", r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_gpu_bench_drivers_build_with_nvcc():
    # intrinsics: __restrict__ parameters, which the drivers' declarations leave out
    r = _bench_gpu("--build-only", "--only", "daxpy_shared_scalar,intrinsics")
    assert r.returncode == 0 and "built 2 drivers: daxpy_shared_scalar, intrinsics" in r.stdout, r.stdout + r.stderr


def test_mpi_bench_prints_a_ratio_per_case_and_ranks():
    sys.path.insert(0, str(ROOT / "tests"))
    from mpirun import missing_mpi

    why = missing_mpi()
    if why:
        pytest.skip(why)
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "mpi.py"), "--quick", "--rounds", "1", "--ranks", "1,2"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    header = next(k for k, line in enumerate(lines) if line.startswith("case"))
    rows = [line for line in lines[header + 1:] if line.strip()]
    assert [row.split()[0] for row in rows] == ["allreduce_dot", "heat_sendrecv", "heat_isend_irecv",
                                                "stencil_2d_checkpointed"]
    assert all(row.count("x (") == 2 for row in rows), rows
    kept = subprocess.run([sys.executable, str(ROOT / "bench" / "mpi.py"), "--quick", "--rounds", "1", "--ranks", "1",
                           "--workspace"], capture_output=True, text=True, timeout=300)
    assert kept.returncode == 0 and "grad_f_ws on a kept workspace" in kept.stdout, kept.stdout + kept.stderr


def test_tape_bytes_no_cache_is_larger_than_what_is_read_back():
    """bench/tape_bytes.py: issue 19's target, store-all caches no larger than the values the
    reverse sweep reads, holds for every loop kernel (a copy taken whole may hold a few elements
    its triangle never reads: trmm's, 4 %)."""
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "tape_bytes.py")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in r.stdout.splitlines()
            if line.startswith("| ") and not line.startswith(("| kernel", "| ---"))]
    ratios = {row[0]: float(row[-1]) for row in rows if row[-1] != "-"}
    assert "durbin" in ratios and "all" in ratios, r.stdout
    assert all(ratio <= 1.05 for ratio in ratios.values()), r.stdout
    assert ratios["all"] <= 1.0, r.stdout
