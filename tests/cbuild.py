"""Compile generated C into a shared library and call it from Python through ctypes.

``build(source)`` compiles with ``gcc -std=c99 -Wall -Wextra -Werror -O1 -shared
-fPIC`` in a temporary directory (any warning fails the build, with gcc's
message) and loads the library. ``CFunction`` calls one of its functions with
NumPy arrays (passed as pointers to their data: float64 as ``double *``, int64
as ``long *``), Python floats and ints, and ``Out`` cells for ``double *``
out-parameters that start at a given value and are read back after the call.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-shared", "-fPIC"]

_KEEP: list[Any] = []  # temporary directories live as long as the libraries loaded from them


def have_gcc() -> bool:
    return shutil.which("gcc") is not None


class CompileError(AssertionError):
    pass


def compile_c(source: str, extra: tuple[str, ...] = ()) -> Path:
    """The path of a shared library built from ``source`` (raises CompileError with gcc's output)."""
    tmp = tempfile.TemporaryDirectory(prefix="s2sad_c_")
    _KEEP.append(tmp)
    src = Path(tmp.name) / "gen.c"
    src.write_text(source)
    lib = Path(tmp.name) / "libgen.so"
    r = subprocess.run(["gcc", *CFLAGS, *extra, str(src), "-o", str(lib), "-lm"], capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        numbered = "\n".join(f"{k + 1:4} {line}" for k, line in enumerate(source.splitlines()))
        raise CompileError(f"gcc failed:\n{r.stderr}\n--- source ---\n{numbered}")
    return lib


# For the user's own (input) C: gcc does not know s2sad's `#pragma s2sad checkpoint`, and
# -Wall warns about pragmas it does not know; a user compiling an annotated file passes this.
INPUT_FLAGS = ("-Wno-unknown-pragmas",)


def build(source: str, extra: tuple[str, ...] = ()) -> ctypes.CDLL:
    return ctypes.CDLL(str(compile_c(source, extra)))


@dataclass
class Out:
    """A ``double *`` out-parameter: a cell that starts at ``value``."""

    value: float = 0.0


_SCALARS = {"double": ctypes.c_double, "float": ctypes.c_float, "long": ctypes.c_long, "int": ctypes.c_int}
_POINTERS = {
    "double": (np.float64, ctypes.c_double),
    "float": (np.float32, ctypes.c_float),
    "long": (np.int64, ctypes.c_long),
    "int": (np.int32, ctypes.c_int),
}


class CFunction:
    """A C function with a signature given as C parameter types (``"double *"``, ``"long"``...)."""

    def __init__(self, lib: ctypes.CDLL, name: str, params: list[str], result: str = "void"):
        self.fn = getattr(lib, name)
        self.params = params
        self.fn.argtypes = [
            ctypes.POINTER(_POINTERS[p[:-1].strip()][1]) if p.endswith("*") else _SCALARS[p] for p in params
        ]
        self.fn.restype = None if result == "void" else _SCALARS[result]

    def __call__(self, *args: Any) -> Any:
        assert len(args) == len(self.params), f"expected {len(self.params)} arguments, got {len(args)}"
        c_args = []
        cells = []
        for p, a in zip(self.params, args):
            if p.endswith("*"):
                base = p[:-1].strip()
                dtype, ctype = _POINTERS[base]
                if isinstance(a, Out):
                    cell = ctype(a.value)
                    cells.append((a, cell))
                    c_args.append(ctypes.pointer(cell))
                else:
                    assert isinstance(a, np.ndarray) and a.dtype == dtype and a.flags.c_contiguous, (p, a)
                    c_args.append(a.ctypes.data_as(ctypes.POINTER(ctype)))
            else:
                c_args.append(a)
        result = self.fn(*c_args)
        for out, cell in cells:
            out.value = cell.value
        return result
