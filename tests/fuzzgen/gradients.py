"""Differentiate a program with s2sad for one configuration, and call the result.

``differentiate`` runs s2sad in process (the same pipeline as ``s2sad grad``): a
``DiagnosticError`` is a refusal (``Refused``), any other exception a crash (``Bad``).
``load`` turns the output into a function of (inputs, seeds, d_return) for any target: Python
and Numba output is executed as a module, C output compiled with gcc (``-Werror``, as the suite
does) and called through ctypes with the signature read back from the output, which must be the
contract's.
"""

from __future__ import annotations

import ctypes
import inspect
import re
import shutil
import subprocess
import sys
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from cbuild import CFunction, CompileError, Out, SanitizedLibrary, compile_c
from s2sad import pipeline
from s2sad.ssa.attrs import parse_schedule
from s2sad.diagnostics import DiagnosticError

from .program import Program, local_names, written_params
from .python_ints import returns_float

LOCATED = re.compile(r"^prog\.(py|c):\d+:\d+: error: ")


@dataclass(frozen=True)
class Config:
    """One way to differentiate: a target, an optimization level, a checkpoint schedule."""

    target: str  # "py", "numba", "c"
    level: int
    schedule: str = ""  # --checkpoint; "" leaves the default (store-all, annotations win)

    def flags(self) -> list[str]:
        out = [f"-O{self.level}", "--target", self.target]
        if self.schedule:
            out += ["--checkpoint", self.schedule]
        return out

    def __str__(self) -> str:
        return " ".join(self.flags())


class Refused(Exception):
    """s2sad declined the program with a located error (not a mismatch)."""


class Bad(Exception):
    """Something s2sad must never do; ``kind`` names the mismatch class."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def filename(program: Program) -> str:
    return "prog.py" if program.lang == "py" else "prog.c"


def differentiate(program: Program, source: str, config: Config) -> str:
    options = pipeline.Options(level=config.level,
                               checkpoint=parse_schedule(config.schedule) if config.schedule else None)
    try:
        return pipeline.gradient_source(source, filename(program), "f", list(program.wrt), config.target, options)
    except DiagnosticError as e:
        text = e.render()
        if not LOCATED.match(text):
            raise Bad("unlocated-refusal", text) from None
        raise Refused(text) from None
    except Exception:  # noqa: BLE001 - any other exception is a crash of s2sad
        raise Bad("crash", traceback.format_exc(limit=-4)) from None


def expected_params(program: Program, target: str) -> list[tuple[str, str]]:
    """The gradient's parameters as the contract spells them, each with the primal parameter it
    is the shadow of ("" for a primal parameter, "return" for the seed, there when ``f`` returns
    a float: not an unannotated Python ``f`` that returns ``math.floor(e)``), renamed as the README
    says where a user name has the spelling: a function of the program, or a parameter or local
    of ``f``, pushes ``d_x`` to the first free of ``d_x_``, ``d_x__``, ... (in parameter order)."""
    main = program.main
    written = written_params(program, main)
    taken = {fn.name for fn in program.functions} | {p.name for p in main.params} | local_names(main)

    def free(name: str) -> str:
        while name in taken:
            name += "_"
        taken.add(name)
        return name

    out = []
    for p in main.params:
        out.append((p.name, ""))
        shadowed = p.kind in ("array", "matrix") and (p.name in program.wrt or p.name in written)
        if shadowed or (target == "c" and p.kind == "float" and p.name in program.wrt):
            out.append((free("d_" + p.name), p.name))
    if main.returns and returns_float(program, main):
        out.append((free("d_return"), "return"))
    return out


Gradient = Callable[[dict, dict, float], tuple]


def load(program: Program, text: str, config: Config, build: str = "") -> Gradient:
    """``gradient(inputs, seeds, d_return) -> (adjoints of the scalar --wrt, arrays, shadows)``;
    inputs and seeds are copied, never changed. ``build`` (C only) is one of ``C_BUILDS``."""
    expected = expected_params(program, config.target)
    if config.target == "c":
        return _load_c(program, text, expected, build)
    return _load_python(program, text, config, expected)


def _check_names(names: list[str], expected: list[tuple[str, str]], extents: Optional[dict] = None) -> None:
    """``names`` are the expected ones, with the ``extents`` (C only) where the README puts them."""
    want = [n for n, _ in expected]
    extents = extents or {}
    at = len(want) - (1 if expected and expected[-1][1] == "return" else 0)
    want = want[:at] + [n for n in names if n in extents] + want[at:]
    if names != want:
        raise Bad("signature", f"grad_f({', '.join(names)}), expected grad_f({', '.join(want)})")


def _refuse_guarded_numbers(program: Program, text: str, names: list[str], expected: list[tuple[str, str]]) -> None:
    """A Python gradient without the shadow of an array the program differentiates or writes,
    because s2sad took the array for a number (nothing in the code said: ``def f(x): return
    1.0``), refuses the program when it checks that guess on entry ("x must be a number: its
    rank is not evident in f"): called as the contract says for an array, it stops, loudly."""
    kinds = {p.name: p.kind for p in program.main.params}
    missing = [owner for name, owner in expected if owner not in ("", "return") and name not in names]
    if missing and all(kinds[p] in ("array", "matrix") and f"{p} must be a number: its rank is not evident" in text
                       for p in missing):
        raise Refused(f"grad_f takes {' and '.join(missing)} for numbers (no shadow) and checks that on entry")


def _load_python(program: Program, text: str, config: Config, expected: list[tuple[str, str]]) -> Gradient:
    name = f"fuzz_grad_{abs(hash(text))}"
    module = types.ModuleType(name)
    sys.modules[name] = module  # Numba resolves self-calls through sys.modules
    try:
        exec(compile(text, f"<{config}>", "exec"), module.__dict__)
    except Exception:  # noqa: BLE001
        raise Bad("compile", traceback.format_exc(limit=-2)) from None
    fn = module.grad_f
    names = list(inspect.signature(fn.py_func if hasattr(fn, "py_func") else fn).parameters)
    _refuse_guarded_numbers(program, text, names, expected)
    floats = [p.name for p in program.main.params if p.kind == "float" and p.name in program.wrt]
    # A shape-generic float (README, CONTRACT: one that only meets arrays in broadcasting
    # arithmetic) has a shadow of its shape right after it, a 0-d array here, instead of a
    # returned adjoint.
    # Its name is d_<p>, or the first free of d_<p>_, d_<p>__, ... where the program uses it
    # (fuzz seed 13012246: a local d_a made a's shadow d_a_).
    generic = {p: names[names.index(p) + 1] for p in floats if p in names and names.index(p) + 1 < len(names)
               and re.fullmatch(f"d_{re.escape(p)}_*", names[names.index(p) + 1])}
    for p, shadow in generic.items():
        at = [n for n, _ in expected].index(p) + 1
        expected = expected[:at] + [(shadow, "@" + p)] + expected[at:]
    _check_names(names, expected)
    owner = dict(expected)
    returned = [p for p in floats if p not in generic]

    def gradient(inputs: dict, seeds: dict, d_return: float) -> tuple:
        work = {k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
        shadows = {k: np.copy(v) for k, v in seeds.items()}
        cells = {p: np.zeros(()) for p in generic}
        args = [d_return if owner[n] == "return" else cells[owner[n][1:]] if owner[n].startswith("@")
                else shadows[owner[n]] if owner[n] else work[n] for n in names]
        got = fn(*args)
        got = (got,) if len(returned) == 1 else (tuple(got) if returned else ())
        adjoints = dict(zip(returned, (float(g) for g in got)))
        adjoints.update((p, float(c)) for p, c in cells.items())
        return adjoints, work, shadows

    gradient.warnings = _unformatted(text)
    return gradient


RUFF = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))


def _unformatted(text: str) -> Optional[Bad]:
    """Generated Python that ``ruff format`` (default settings) would change, with its diff
    (checked after the gradient, like a C compiler's warnings)."""
    if not Path(RUFF).exists():
        return None
    r = subprocess.run([RUFF, "format", "--isolated", "--no-cache", "--diff", "-"], input=text,
                       capture_output=True, text=True)
    return Bad("unformatted", (r.stdout + r.stderr)[:4000]) if r.returncode else None


_EXTENT = re.compile(r"^(\w+)_shape(\d+)_*$")


def _extent_params(program: Program, names: list[str], expected: list[tuple[str, str]]) -> dict:
    """The ``long <array>_shape<axis>`` parameters of C output from unannotated Python, as the
    README says: an extent of an unannotated array that the C code needs exactly (a copy's, a
    row length), after the other parameters and before ``d_return``. Which extents the code
    needs is the code's business: the signature says, and each gets its array's true extent."""
    if program.lang != "py" or program.annotate:
        return {}
    arrays = {p.name for p in program.main.params if p.kind in ("array", "matrix")}
    taken = {n for n, _ in expected}
    out = {}
    for name in names:
        m = _EXTENT.match(name)
        if m and name not in taken and m.group(1) in arrays:
            out[name] = (m.group(1), int(m.group(2)))
    return out


_SIGNATURE = re.compile(r"\bvoid\s+grad_f\s*\(([^)]*)\)\s*\{", re.S)
_QUALIFIERS = re.compile(r"\b(const|restrict|__restrict__|__restrict)\b")


def c_signature(text: str) -> list[tuple[str, str]]:
    """(type, name) of each parameter of ``grad_f`` in C output (types as cbuild spells them)."""
    m = _SIGNATURE.search(text)
    if not m:
        raise Bad("signature", "no 'void grad_f(...)' in the C output")
    out = []
    for part in m.group(1).split(","):
        part = _QUALIFIERS.sub(" ", part).strip()
        pm = re.match(r"^(.*?)\s*(\*?)\s*(\w+)$", part)
        if not pm:
            raise Bad("signature", f"cannot read parameter '{part}'")
        base = " ".join(pm.group(1).split())
        out.append((f"{base} *" if pm.group(2) else base, pm.group(3)))
    return out


# The builds a C gradient is checked with: gcc -O2 (cbuild.CFLAGS) by default. The other two
# tell a miscompile from a wrong gradient (check.miscompiled): -O2 without the two
# interprocedural passes gcc 12.2 gets wrong (it deletes the call of a function whose loop
# writes an array it also reads, as if the function were const), and -O1 under
# -fsanitize=address,undefined (the source has no undefined behaviour that -O2 may exploit).
C_BUILDS = {"": (), "no-ipa": ("-fno-ipa-pure-const", "-fno-ipa-modref"), "sanitized": ()}


def _c_library(text: str, extra: tuple[str, ...], build: str):
    return SanitizedLibrary(text, extra) if build == "sanitized" else ctypes.CDLL(str(compile_c(text, extra)))


def _load_c(program: Program, text: str, expected: list[tuple[str, str]], build: str = "") -> Gradient:
    signature = c_signature(text)
    extents = _extent_params(program, [n for _, n in signature], expected)
    _check_names([n for _, n in signature], expected, extents)
    owner = dict(expected)
    extra = (("-fopenmp",) if "#pragma omp" in text else ()) + C_BUILDS[build]
    warnings = None
    try:
        lib = _c_library(text, extra, build)
    except CompileError as e:
        try:  # without -Werror: a warning is reported, and the gradient is still checked
            lib = _c_library(text, (*extra, "-w"), build)
        except CompileError:
            raise Bad("compile", str(e)[:4000]) from None
        warnings = Bad("compile-warning", str(e)[:4000])
    types_ = [t for t, _ in signature]
    for t in types_:
        if t not in ("double *", "float *", "long *", "int *", "double", "long", "int"):
            raise Bad("signature", f"unexpected parameter type '{t}'")
    fn = CFunction(lib, "grad_f", types_)
    floats = [p.name for p in program.main.params if p.kind == "float" and p.name in program.wrt]

    def gradient(inputs: dict, seeds: dict, d_return: float) -> tuple:
        work = {k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
        shadows = {k: np.copy(v) for k, v in seeds.items()}
        cells = {f: Out(0.0) for f in floats}
        args = []
        for t, n in signature:
            if n in extents:
                array, axis = extents[n]
                args.append(work[array].shape[axis])
            elif owner[n] == "return":
                args.append(d_return)
            elif owner[n] in cells:
                args.append(cells[owner[n]])
            elif owner[n] in shadows:
                args.append(shadows[owner[n]])
            elif t in ("long *", "int *"):
                work[n] = work[n].astype(np.int64 if t == "long *" else np.int32)
                args.append(work[n])
            else:
                args.append(work[n])
        fn(*args)
        return {f: c.value for f, c in cells.items()}, work, shadows

    gradient.warnings = warnings
    return gradient
