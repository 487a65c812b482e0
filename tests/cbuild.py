"""Compile generated C into a shared library and call it from Python through ctypes.

``build(source)`` compiles with ``gcc -std=c99 -Wall -Wextra -Werror -O2 -shared
-fPIC`` in a temporary directory (any warning fails the build, with gcc's
message) and loads the library. -O2, not less: gcc finds the flow warnings
(``-Wmaybe-uninitialized``, ``-Wuse-after-free``) only while it optimizes, and
generated C must compile cleanly at every level. ``CFunction`` calls one of its functions with
NumPy arrays (passed as pointers to their data: float64 as ``double *``, int64
as ``long *``), Python floats and ints, and ``Out`` cells for ``double *``
out-parameters that start at a given value and are read back after the call.
``build_sanitized(source)`` builds the same source with ``-fsanitize=address,undefined``
(and the same warnings) for CFunction and cprimal.CSignature, which then run each call
as a program of its own (ASan cannot be loaded into Python): any memory error, leak or
undefined behaviour raises SanitizerError with the sanitizer's report.
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

CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC"]

_KEEP: list[Any] = []  # temporary directories live as long as the libraries loaded from them


def have_gcc() -> bool:
    return shutil.which("gcc") is not None


class CompileError(AssertionError):
    pass


def compile_c(source: str, extra: tuple[str, ...] = (), sources: tuple[Path, ...] = ()) -> Path:
    """The path of a shared library built from ``source`` and the C files ``sources`` (functions
    defined outside it, linked in as a user's build would), raising CompileError with gcc's output."""
    tmp = tempfile.TemporaryDirectory(prefix="s2sad_c_")
    _KEEP.append(tmp)
    src = Path(tmp.name) / "gen.c"
    src.write_text(source)
    lib = Path(tmp.name) / "libgen.so"
    r = subprocess.run(["gcc", *CFLAGS, *extra, str(src), *map(str, sources), "-o", str(lib), "-lm"],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        numbered = "\n".join(f"{k + 1:4} {line}" for k, line in enumerate(source.splitlines()))
        raise CompileError(f"gcc failed:\n{r.stderr}\n--- source ---\n{numbered}")
    return lib


# For the user's own (input) C: gcc does not know s2sad's `#pragma s2sad checkpoint`, and
# -Wall warns about pragmas it does not know; a user compiling an annotated file passes this.
INPUT_FLAGS = ("-Wno-unknown-pragmas",)


def build(source: str, extra: tuple[str, ...] = (), sources: tuple[Path, ...] = ()) -> ctypes.CDLL:
    return ctypes.CDLL(str(compile_c(source, extra, sources)))


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

    def __init__(self, lib: Any, name: str, params: list[str], result: str = "void"):
        self.params = params
        if isinstance(lib, SanitizedLibrary):  # runs as its own program (see below)
            self.sanitized: Any = (lib, name, result)
            return
        self.sanitized = None
        self.fn = getattr(lib, name)
        self.fn.argtypes = [
            ctypes.POINTER(_POINTERS[p[:-1].strip()][1]) if p.endswith("*") else _SCALARS[p] for p in params
        ]
        self.fn.restype = None if result == "void" else _SCALARS[result]

    def __call__(self, *args: Any) -> Any:
        assert len(args) == len(self.params), f"expected {len(self.params)} arguments, got {len(args)}"
        if self.sanitized is not None:
            lib, name, result = self.sanitized
            kinds = [_POINTERS[p[:-1].strip()][1] if p.endswith("*") else _SCALARS[p] for p in self.params]
            for p, a in zip(self.params, args):
                if p.endswith("*") and not isinstance(a, Out):
                    dtype = _POINTERS[p[:-1].strip()][0]
                    assert isinstance(a, np.ndarray) and a.dtype == dtype and a.flags.c_contiguous, (p, a)
            return lib.run(name, self.params, kinds, None if result == "void" else _SCALARS[result], list(args))
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


# ------------------------------------------------------------------ sanitizer builds
#
# A shared library built with AddressSanitizer cannot be loaded into a Python that was not
# started with the ASan runtime, so a sanitized gradient runs as its own program: the source
# plus a small driver made for the called function's signature, which reads each argument from
# stdin (an array as its byte count and bytes, into a buffer of exactly that size, so reading or
# writing past it is caught), calls the function, and writes every array and the result back.
# Any error AddressSanitizer, LeakSanitizer or UndefinedBehaviorSanitizer finds ends the
# program (-fno-sanitize-recover=all) and fails the test with the sanitizer's report.

SANITIZE_FLAGS = [
    "-std=c99", "-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
]


class SanitizerError(AssertionError):
    pass


def _sanitizer_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:halt_on_error=1"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    return env


class SanitizedLibrary:
    """``source`` built with -fsanitize=address,undefined; ``function(...)`` is CFunction's twin."""

    def __init__(self, source: str, extra: tuple[str, ...] = (), sources: tuple[Path, ...] = ()):
        self.source = source
        self.extra = extra
        self.sources = sources  # C files linked into every program (functions defined outside source)
        self.tmp = tempfile.TemporaryDirectory(prefix="s2sad_asan_")
        _KEEP.append(self.tmp)
        self.dir = Path(self.tmp.name)
        (self.dir / "gen.c").write_text(source)
        self._programs: dict[tuple, Path] = {}
        obj = self.dir / "gen.o"
        flags = [f for f in CFLAGS if f not in ("-O2", "-shared", "-fPIC")]
        r = subprocess.run(
            ["gcc", *flags, *SANITIZE_FLAGS[1:], *extra, "-c", str(self.dir / "gen.c"), "-o", str(obj)],
            capture_output=True, text=True,
        )
        if r.returncode != 0 or r.stderr.strip():
            numbered = "\n".join(f"{k + 1:4} {line}" for k, line in enumerate(source.splitlines()))
            raise CompileError(f"gcc failed:\n{r.stderr}\n--- source ---\n{numbered}")

    def program(self, symbol: str, params: list[str], result: str) -> Path:
        """The executable that calls ``symbol``: ``params`` as C types, ``"T *"`` for pointers."""
        key = (symbol, tuple(params), result)
        if key in self._programs:
            return self._programs[key]
        k = len(self._programs)
        proto = ", ".join("void *" if p.endswith("*") else p for p in params) or "void"
        lines = [
            "#include <stdio.h>",
            "#include <stdlib.h>",
            f"{result} {symbol}({proto});",
            "static void get(void *p, size_t n) { if (n && fread(p, 1, n, stdin) != n) exit(3); }",
            "static void put(const void *p, size_t n) { if (n && fwrite(p, 1, n, stdout) != n) exit(4); }",
            "int main(void) {",
        ]
        args = []
        for i, p in enumerate(params):
            if p.endswith("**"):  # rows of pointers: each row a block of its own, as a user's code makes them
                lines += [f"    long r{i}, w{i}; get(&r{i}, sizeof r{i}); get(&w{i}, sizeof w{i});",
                          f"    char **a{i} = malloc((r{i} > 0 ? r{i} : 1) * sizeof(char *));",
                          f"    for (long k = 0; k < r{i}; k++) {{ a{i}[k] = malloc(w{i}); get(a{i}[k], w{i}); }}"]
            elif p.endswith("*"):
                lines.append(f"    long n{i}; get(&n{i}, sizeof n{i}); void *a{i} = malloc(n{i}); get(a{i}, n{i});")
            else:
                lines.append(f"    {p} a{i}; get(&a{i}, sizeof a{i});")
            args.append(f"a{i}")
        call = f"{symbol}({', '.join(args)})"
        lines.append(f"    {call};" if result == "void" else f"    {result} r = {call};")
        for i, p in enumerate(params):
            if p.endswith("**"):
                lines.append(f"    for (long k = 0; k < r{i}; k++) {{ put(a{i}[k], w{i}); free(a{i}[k]); }}")
                lines.append(f"    free(a{i});")
            elif p.endswith("*"):
                lines.append(f"    put(a{i}, n{i}); free(a{i});")
        if result != "void":
            lines.append("    put(&r, sizeof r);")
        lines += ["    return 0;", "}"]
        driver = self.dir / f"driver{k}.c"
        driver.write_text("\n".join(lines) + "\n")
        exe = self.dir / f"prog{k}"
        r = subprocess.run(
            ["gcc", *SANITIZE_FLAGS, *self.extra, str(self.dir / "gen.o"), *map(str, self.sources), str(driver),
             "-o", str(exe), "-lm"],
            capture_output=True, text=True,
        )
        if r.returncode != 0:
            raise CompileError(f"gcc -fsanitize=address,undefined failed:\n{r.stderr}")
        self._programs[key] = exe
        return exe

    def run(self, symbol: str, params: list[str], ctypes_of: list[Any], result_ctype: Any, args: list[Any]) -> Any:  # noqa: E501
        """Call ``symbol`` with ``args`` (arrays: NumPy or ctypes arrays, updated in place; ``Out``
        cells for scalar pointers; scalars) in the sanitized program; returns its result."""
        result = "void" if result_ctype is None else _C_SPELLING[result_ctype]
        exe = self.program(symbol, params, result)
        chunks: list[bytes] = []
        for p, ct, a in zip(params, ctypes_of, args):
            if p.endswith("**"):  # a 2-D NumPy array, sent as its rows
                chunks += [bytes(ctypes.c_long(a.shape[0])), bytes(ctypes.c_long(a.strides[0])), _bytes_of(a)]
            elif p.endswith("*"):
                data = bytes(ct(a.value)) if isinstance(a, Out) else _bytes_of(a)
                chunks += [bytes(ctypes.c_long(len(data))), data]
            else:
                chunks.append(bytes(ct(a)))
        r = subprocess.run([str(exe)], input=b"".join(chunks), capture_output=True, env=_sanitizer_env())
        if r.returncode != 0:
            raise SanitizerError(
                f"{symbol} failed under -fsanitize=address,undefined (exit {r.returncode}):\n"
                + r.stderr.decode(errors="replace")
            )
        out = memoryview(r.stdout)
        pos = 0
        for p, ct, a in zip(params, ctypes_of, args):
            if not p.endswith("*"):
                continue
            n = ctypes.sizeof(ct) if isinstance(a, Out) else len(_bytes_of(a))
            data = bytes(out[pos : pos + n])
            pos += n
            if isinstance(a, Out):
                a.value = ct.from_buffer_copy(data).value
            elif isinstance(a, np.ndarray):
                a[...] = np.frombuffer(data, dtype=a.dtype).reshape(a.shape)
            else:
                ctypes.memmove(a, data, n)
        if result_ctype is None:
            assert pos == len(out)
            return None
        value = result_ctype.from_buffer_copy(bytes(out[pos:]))
        return value.value


def _bytes_of(a: Any) -> bytes:
    if isinstance(a, np.ndarray):
        assert a.flags.c_contiguous
        return a.tobytes()
    return bytes(a)  # a ctypes array


_C_SPELLING = {
    ctypes.c_double: "double", ctypes.c_float: "float", ctypes.c_long: "long", ctypes.c_int: "int",
    ctypes.c_uint: "unsigned int", ctypes.c_ulong: "unsigned long", ctypes.c_bool: "_Bool",
}


def build_sanitized(source: str, extra: tuple[str, ...] = (), sources: tuple[Path, ...] = ()) -> SanitizedLibrary:
    return SanitizedLibrary(source, extra, sources)
