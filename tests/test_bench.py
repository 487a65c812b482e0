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
    assert [row[0] for row in rows[:3]] == ["gmm", "ba", "lstm"]
    assert all(float(row[-1]) > 0 for row in rows[:3])


@pytest.mark.skipif(not have_gcc(), reason="gcc is not installed")
def test_c_suite_check_mode_passes():
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "c_suite.py"), "--check"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all gradients match finite differences" in r.stdout


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
    r = _bench_gpu("--build-only", "--only", "daxpy_shared_scalar")
    assert r.returncode == 0 and "built 1 drivers: daxpy_shared_scalar" in r.stdout, r.stdout + r.stderr
