"""Run CUDA kernels on the CPU: compile them with g++ against tests/cuda_emu.h, call them through ctypes.

``EmulatedKernel(source, func, launch)`` reads ``func``'s parameters (tests/cprimal.py's
reader, after CUDA's qualifiers are dropped) and builds a library where the
``extern "C"`` function ``emu_<func>`` launches ``func`` over the grid and block of
``launch``, one emulated thread at a time (see cuda_emu.h). ``primal()`` calls it
with NumPy arrays and Python numbers, like ``CSignature.primal``.

``EmulatedKernel.gradient(text, wrt, written)`` does the same for a generated
``grad_<func>`` (launched, as the contract says, with the primal's grid and
block) and returns a caller in the convention of tests/fd.py's check_gradient.

Primal and gradient live in separate libraries: a gradient file carries its own
copies of the device functions it needs, under the primal's names.

A kernel made from a Python loop (``--target cuda`` of a ``.py`` file) has no C
primal to read the parameters from: ``primal_declaration`` gives them from the
gradient, whose parameters are the primal's with the shadows in between.
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable

from cprimal import CParam, CSignature

HERE = Path(__file__).resolve().parent
CXXFLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC", f"-I{HERE}"]

_QUALIFIERS = re.compile(r"\b(?:__global__|__device__|__host__|__forceinline__|__noinline__|__shared__)\b")
_KEEP: list[Any] = []  # temporary directories live as long as the libraries loaded from them


def have_gxx() -> bool:
    return shutil.which("g++") is not None


def have_nvcc() -> bool:
    return shutil.which("nvcc") is not None


def as_c(source: str) -> str:
    """CUDA source as plain C for the signature reader: the qualifiers dropped."""
    return _QUALIFIERS.sub("", source)


def _declaration(p: CParam) -> str:
    return f"{p.base} *{p.name}" if p.pointer else f"{p.base} {p.name}"


def primal_declaration(text: str, func: str) -> str:
    """``void func(...) {}`` with the parameters of ``grad_<func>`` in ``text``, less the shadows."""
    params: list[CParam] = []
    for p in CSignature.parse(as_c(text), f"grad_{func}").params:
        if not (params and p.name == f"d_{params[-1].name}") and p.name != "d_return":
            params.append(p)
    return f"void {func}({', '.join(_declaration(p) for p in params)}) {{}}\n"


def _dim3(v: list[int]) -> str:
    return "dim3({})".format(", ".join(str(x) for x in v))


def launcher(func: str, params: list[CParam], launch: dict, name: str) -> str:
    """An ``extern "C"`` function ``name`` with ``func``'s parameters that launches it."""
    decls = ", ".join(_declaration(p) for p in params)
    args = ", ".join(p.name for p in params)
    grid, block = _dim3(launch["grid"]), _dim3(launch["block"])
    return (f'extern "C" void {name}({decls}) {{\n'
            f"    emu::launch({grid}, {block}, [&] {{ {func}({args}); }});\n}}\n")


def compile_emulated(kernel: str, wrapper: str) -> ctypes.CDLL:
    """``kernel`` (a .cu text) and ``wrapper`` compiled by g++ with the emulation header."""
    tmp = tempfile.TemporaryDirectory(prefix="s2sad_cu_")
    _KEEP.append(tmp)
    d = Path(tmp.name)
    (d / "kernel.cu").write_text(kernel)
    (d / "main.cpp").write_text('#include "cuda_emu.h"\n#include "kernel.cu"\n\n' + wrapper)
    lib = d / "libkernel.so"
    r = subprocess.run(["g++", *CXXFLAGS, str(d / "main.cpp"), "-o", str(lib)], capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        numbered = "\n".join(f"{k + 1:4} {line}" for k, line in enumerate(kernel.splitlines()))
        raise AssertionError(f"g++ failed:\n{r.stderr}\n--- kernel ---\n{numbered}")
    return ctypes.CDLL(str(lib))


class EmulatedKernel:
    """A kernel run one emulated thread at a time; tests/cudadev.py's DeviceKernel runs it on a GPU."""

    def __init__(self, source: str, func: str, launch: dict):
        self.func = func
        self.launch = launch
        self.signature = CSignature.parse(as_c(source), func)
        # The launcher's own signature: ``emu_<func>``, whose gradient is ``grad_emu_<func>``.
        decls = ", ".join(_declaration(p) for p in self.signature.params)
        self.launched = CSignature.parse(f"void emu_{func}({decls}) {{}}", f"emu_{func}")
        self.source = source

    def primal(self) -> Callable[..., Any]:
        lib = self.library(self.source, self.func, self.signature.params, f"emu_{self.func}")
        return self.checked(lib, self.launched.primal(lib))

    def gradient(self, text: str, wrt: list[str], written: list[str]) -> Callable[..., Any]:
        grad = CSignature.parse(as_c(text), f"grad_{self.func}")
        lib = self.library(text, f"grad_{self.func}", grad.params, f"grad_emu_{self.func}")
        return self.checked(lib, self.launched.gradient(lib, wrt, written))

    def library(self, kernel: str, func: str, params: list[CParam], name: str) -> ctypes.CDLL:
        """``kernel`` built with an ``extern "C"`` function ``name`` that launches ``func``."""
        return compile_emulated(kernel, launcher(func, params, self.launch, name))

    def checked(self, lib: ctypes.CDLL, call: Callable[..., Any]) -> Callable[..., Any]:
        """``call`` as the tests use it: an emulated launch needs nothing around it."""
        return call
