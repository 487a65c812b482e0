"""Shared pytest options: ``--update-golden`` rewrites golden/*/expected* files."""

from __future__ import annotations


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the expected outputs under golden/ instead of comparing with them",
    )
