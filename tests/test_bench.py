"""The benchmark scripts run (small sizes): their figures are quoted in the README, so they must keep working."""

from __future__ import annotations

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
    rows = [line for line in r.stdout.splitlines() if line.endswith("x") and " ms " in line]
    assert [row.split("  ")[0] for row in rows] == ["GMM log-likelihood", "bundle adjustment", "LSTM sequence"]
