"""The languages s2sad reads and writes, spelled once.

Input: a file's suffix names its language (``.py`` Python; ``.c``/``.h`` C; ``.cu``/``.cuh``
CUDA C, which the C front end reads with its CUDA extensions). Output: the targets
``--target`` accepts; without it, the output file's suffix names one (``-o grad.c``), else the
input's language does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

SOURCE_LANGUAGES = {".py": "python", ".c": "c", ".h": "c", ".cu": "cuda", ".cuh": "cuda"}
TARGETS = ("py", "numba", "c", "cuda")
_TARGET_OF = {"python": "py", "c": "c", "cuda": "cuda"}


def source_language(filename: str) -> Optional[str]:
    """``python``, ``c`` or ``cuda`` by the suffix (any case); None for another suffix."""
    return SOURCE_LANGUAGES.get(Path(filename).suffix.lower())


def is_c(filename: str) -> bool:
    """Read by the C front end: C or CUDA C."""
    return source_language(filename) in ("c", "cuda")


def is_cuda(filename: str) -> bool:
    return source_language(filename) == "cuda"


def target_of(filename: str) -> Optional[str]:
    """The output target a file of this suffix holds (``grad.c``: c); None for another suffix."""
    language = source_language(filename)
    return _TARGET_OF[language] if language is not None else None


def suffixes_text() -> str:
    """The input suffixes as a message names them: ``.py, .c, .h, .cu or .cuh``."""
    names = list(SOURCE_LANGUAGES)
    return ", ".join(names[:-1]) + " or " + names[-1]
