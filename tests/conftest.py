"""Shared pytest options: ``--update-golden`` rewrites golden/*/expected* files.

Property tests (hypothesis) draw the same examples on every run, so that a CI run is
reproducible; ``HYPOTHESIS_PROFILE=explore ./run-tests`` draws new ones each time.
"""

from __future__ import annotations

import os

from hypothesis import settings

# Numba's thread pool is sized when numba is first imported: give the prange tests room for
# 4 threads (tests/test_prange.py runs gradients with 2 and 4) even on a 2-core machine.
os.environ.setdefault("NUMBA_NUM_THREADS", "4")

settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the expected outputs under golden/ instead of comparing with them",
    )
