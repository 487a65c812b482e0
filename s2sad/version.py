"""s2sad's version: pyproject.toml's, as installed; from a source tree never installed, read
from the pyproject.toml beside the package (so a checkout's output says the same)."""

from __future__ import annotations

import re
from pathlib import Path


def _version() -> str:
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    if pyproject.is_file():  # a checkout (installed editable or not): its own version
        found = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"), re.M)
        if found:
            return found.group(1)
    import importlib.metadata  # an installed copy only: a checkout needs none of it

    try:
        return importlib.metadata.version("s2sad")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


VERSION = _version()
