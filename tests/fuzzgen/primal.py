"""The program itself, run: the reference its gradients are checked against.

``Primal`` runs the program as its language runs it (Python executed, C compiled with gcc and
called through ctypes) and its traced twin (render_py, traced) on the same inputs; both take a
dict of inputs and leave it alone.
"""

from __future__ import annotations

import ctypes
import types

import numpy as np

from cbuild import CFunction, compile_c

from .program import Program
from .render_c import render_c
from .render_py import render_python
from .tracing import Tracer

C_TYPES = {"float": "double", "int": "int", "array": "double *", "index": "int *", "matrix": "double *"}


def source_of(program: Program) -> str:
    return render_python(program) if program.lang == "py" else render_c(program)


def _module(text: str, name: str, **names) -> types.SimpleNamespace:
    namespace: dict = dict(names)
    exec(compile(text, name, "exec"), namespace)
    return types.SimpleNamespace(**namespace)


class Primal:
    def __init__(self, program: Program):
        self.program = program
        self.source = source_of(program)
        self.params = program.main.params
        if program.lang == "py":
            self._run = _module(self.source, "<prog.py>").f
        else:
            extra = ("-fopenmp",) if "#pragma omp" in self.source else ()
            lib = ctypes.CDLL(str(compile_c(self.source, ("-Wno-unknown-pragmas", "-Wno-unused-variable",
                                                          "-Wno-unused-parameter", "-Wno-unused-but-set-variable",
                                                          *extra))))
            self._run = CFunction(lib, "f", [C_TYPES[p.kind] for p in self.params], "double")
        self._tracer = Tracer()
        self._twin = _module(render_python(program, traced=True), "<twin>", _fz=self._tracer).f

    def inputs(self, rng: np.random.Generator) -> dict:
        sizes = dict(self.program.sizes)
        n, m = sizes["n"], sizes["m"]
        out: dict = {}
        for p in self.params:
            if p.kind == "float":
                out[p.name] = float(rng.uniform(-1.0, 1.0))
            elif p.kind == "int":
                out[p.name] = sizes[p.name]
            elif p.kind == "array":
                out[p.name] = rng.uniform(-1.0, 1.0, size=n)
            elif p.kind == "index":
                dtype = np.int64 if self.program.lang == "py" else np.int32
                out[p.name] = rng.integers(0, n, size=n).astype(dtype)
            else:
                shape = (n, m) if p.name == "A" else (m, n)
                out[p.name] = rng.uniform(-1.0, 1.0, size=shape)
                if self.program.lang == "c":
                    out[p.name] = out[p.name].reshape(-1)
        return out

    def run(self, inputs: dict, strict: bool = False) -> tuple[float, dict]:
        """(the return value, the arrays at exit); ``strict``: see ``twin``."""
        work = {k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
        with _floating_point(strict):
            value = self._run(*[work[p.name] for p in self.params])
        return float(value), work

    def twin(self, inputs: dict, strict: bool = False) -> tuple[float, list, dict]:
        """(value, the decisions it made, the arrays at exit) of the traced Python twin;
        ``strict``: a NumPy operation that overflows, divides by zero or makes a NaN raises
        ``FloatingPointError`` (as ``math`` does, which generated Python may call instead)."""
        self._tracer.log = []
        # Floats as NumPy's: arithmetic that overflows then raises under ``strict`` (Python's own
        # float gives inf silently, and tanh(inf) = 1 hides it: seed 9400313, s0 *= s0 in nested
        # loops, every gradient 0 * inf = NaN where the function is flat). The same IEEE doubles.
        work = {k: np.copy(v) if isinstance(v, np.ndarray) else np.float64(v) if isinstance(v, float) else v
                for k, v in inputs.items()}
        sizes = dict(self.program.sizes)
        if self.program.lang == "c":
            for p in self.params:
                if p.kind == "matrix":
                    work[p.name] = work[p.name].reshape(sizes["n"], sizes["m"])
        self._tracer.strict = strict
        with _floating_point(strict):
            value = self._twin(*[work[p.name] for p in self.params])
        if self.program.lang == "c":
            for p in self.params:
                if p.kind == "matrix":
                    work[p.name] = work[p.name].reshape(-1)
        return float(value), self._tracer.log, work


def _floating_point(strict: bool):
    """NumPy's floating-point error handling: raising on overflow, division by zero and invalid
    operations, or ignoring them (inf and NaN come out, as C's do)."""
    if strict:
        return np.errstate(over="raise", divide="raise", invalid="raise", under="ignore")
    return np.errstate(all="ignore")
