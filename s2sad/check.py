"""``s2sad check``: a generated gradient against central differences of the primal.

The gradient is generated for the chosen target and built in this process (Python and Numba:
imported from a temporary file; C: ``gcc -std=c99 -O2 -shared -fPIC``, called through ctypes).
The primal is the user's own code: the Python file imported, or the C file compiled. Both run
on the same random inputs, drawn from ``--seed``, and the contract's semantics give what every
adjoint must be: with random seeds ``d_return`` and ``d_a`` for each shadowed array ``a``,

    J(inputs) = d_return * f(inputs) + sum over shadowed arrays a of <d_a, a(exit)>

and on exit each shadow holds dJ/da(entry), each scalar ``--wrt`` adjoint is dJ/dx. Central
differences of J (on copies of the inputs, so arrays the primal overwrites are handled as the
contract says) give the expected value of every component. The arrays the gradient leaves
behind must also be those the primal leaves.

A distributed program (one that communicates over MPI) is checked on ``--ranks N``: the
command runs itself under ``mpirun`` (``under_mpirun``), and each rank draws its own inputs
(from ``--seed`` and its rank), J is summed over the ranks, and every element of every rank's
inputs is moved in turn while all ranks run the whole program (``_Ranks``); rank 0 prints the
table of the worst errors over the ranks. C is then built with ``mpicc``; Python's MPI is
mpi4py's.

A C function that takes structs or tables of row pointers (``double **A``) is called through
shims that build them from the values check makes (``check_shims``).

What is not handled is refused with a message (``CheckRefused``), never guessed: CUDA, arrays
of structs with members other than doubles, arrays returned, several values returned, boolean
parameters, an MPI program without ``--ranks``.
"""

from __future__ import annotations

import re

import contextlib
import ctypes
import inspect
import math
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import numpy as np

from . import pipeline
from .adjoint.naming import grad_name
from .api import load_module_file
from .languages import is_c, is_cuda
from .parse.c_global_arrays import user_param_count
from .ssa.attrs import grad_info
from .analysis.extents import Sizes
from .check_shims import Group, ShimParam, ShimRefused, gradient_shim, primal_shim, shim_groups
from .ssa.ir import Function, Module
from .ssa.mpi import is_mpi
from .ssa.types import Type

# An index past an array whose extent C knows (a struct's member double w[3] read at i < L->n)
# traps, as the check's other overruns crash, instead of reading the next member: that gave
# a MISMATCH where the integers chosen, not the gradient, were wrong.
GCC_FLAGS = ["-std=c99", "-O2", "-shared", "-fPIC", "-fsanitize=bounds", "-fsanitize-undefined-trap-on-error"]


class CheckRefused(Exception):
    """An input ``check`` cannot test (its message says why and what to do): exit status 1."""


class CheckUsageError(Exception):
    """A check option that does not fit the function (a size for no parameter): exit status 2."""


@dataclass
class Settings:
    """What ``check`` draws and how closely it compares."""

    size: int = 4  # every array dimension, and every integer parameter, unless ``sizes`` says
    sizes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    seed: int = 0
    low: float = -1.0
    high: float = 1.0
    rtol: float = 1e-5
    atol: float = 1e-6
    ranks: Optional[int] = None  # a distributed program's ranks (run under mpirun)


# Set in the environment of the processes mpirun starts for ``check --ranks``: that they are, and
# the file rank 0 writes the check's exit status to (the ranks exit 0 where the check ran to its
# end, match or not: mpirun reports any other status as a failed job).
UNDER_MPIRUN = "S2SAD_CHECK_UNDER_MPIRUN"
STATUS_FILE = "S2SAD_CHECK_STATUS"
_MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def under_mpirun(argv: list[str], ranks: int) -> int:
    """Run ``s2sad check`` (``argv``: its arguments) on ``ranks`` ranks under mpirun, the table
    printed by rank 0; its exit status."""
    mpirun = shutil.which("mpirun") or shutil.which("mpirun", path=os.path.dirname(sys.executable))
    if mpirun is None:
        raise CheckRefused("--ranks: mpirun is not installed (install Open MPI or MPICH, and mpi4py)")
    with tempfile.TemporaryDirectory(prefix="s2sad_check_") as tmp:
        status = os.path.join(tmp, "status")
        # (not an MPI process's own variables, as a caller that imported mpi4py has: mpirun would
        # take itself for one of its ranks)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_", "HYDRA_"))}
        env.update(_MPI_ENV, **{UNDER_MPIRUN: "1", STATUS_FILE: status})
        run = subprocess.run([mpirun, "--oversubscribe", "-np", str(ranks), sys.executable, "-m", "s2sad", "check",
                              *argv], env=env)
        if run.returncode == 0 and os.path.exists(status):
            return int(Path(status).read_text())
        return run.returncode or 1


class _Ranks:
    """The ranks a distributed check runs on (one, alone, for any other check): this one's
    number, their count, and the reductions over them."""

    def __init__(self, distributed: bool):
        self.comm = None
        if distributed:
            try:
                from mpi4py import MPI
            except Exception as e:  # (missing, or no MPI library it can load)
                raise CheckRefused(f"--ranks: mpi4py cannot be imported ({e}); install it with pip") from None
            self.comm = MPI.COMM_WORLD
            self._max, self._sum = MPI.MAX, MPI.SUM
        self.rank = self.comm.Get_rank() if self.comm is not None else 0
        self.size = self.comm.Get_size() if self.comm is not None else 1

    def sum(self, x: float) -> float:
        return self.comm.allreduce(x, op=self._sum) if self.comm is not None else x

    def max(self, x: float) -> float:
        return self.comm.allreduce(x, op=self._max) if self.comm is not None else x

    def any(self, b: bool) -> bool:
        return self.max(1.0 if b else 0.0) > 0.0

    def row(self, r: Row) -> Row:
        """A row of every rank's worst."""
        return Row(r.label, self.max(r.abs_error), self.max(r.rel_error), not self.any(not r.ok))


@dataclass
class Param:
    """One parameter of the primal, as check makes and passes its values."""

    name: str
    kind: str  # "array", "float" or "int"
    dtype: Any  # NumPy dtype of the array's elements, or of the scalar
    rank: int = 0
    shadowed: bool = False  # has a shadow d_<name> in the gradient
    wrt: bool = False  # a scalar whose adjoint the gradient gives back
    # Shape-generic (Python and Numba output, adjoint.shape_generic): the fewest and the most axes
    # it may have (most -1: any), a number or an array of any shape that broadcasts where it is used.
    generic: Optional[tuple[int, int]] = None
    label: str = ""  # as the table and --sizes name it, where not by ``name``: a struct's member (L->w)
    rows: bool = False  # C's table of row pointers (double **A): made as a block, passed through a shim

    @property
    def shown(self) -> str:
        return self.label or self.name


@dataclass
class Row:
    """One line of the table: a parameter's adjoint, or an array's value at exit."""

    label: str
    abs_error: float
    rel_error: float
    ok: bool


@dataclass
class Report:
    title: str
    rows: list[Row]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.rows)

    def table(self) -> str:
        width = max([len("parameter")] + [len(r.label) for r in self.rows])
        lines = [self.title, f"{'parameter':<{width}}  {'max abs error':>13}  {'max rel error':>13}  result"]
        for r in self.rows:
            lines.append(f"{r.label:<{width}}  {r.abs_error:>13.3e}  {r.rel_error:>13.3e}  "
                         f"{'ok' if r.ok else 'MISMATCH'}")
        mismatched = sum(not r.ok for r in self.rows)
        lines.append("all adjoints match central differences" if not mismatched
                     else f"{mismatched} of {len(self.rows)} rows do not match")
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Parameters and inputs

_DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32}
# C's spellings of the scalar types check passes, and what a pointer to one holds.
_C_SCALARS = {"double": (ctypes.c_double, np.float64), "float": (ctypes.c_float, np.float32),
              "int": (ctypes.c_int, np.int32), "long": (ctypes.c_long, np.int64),
              "long long": (ctypes.c_longlong, np.int64),
              "unsigned": (ctypes.c_uint, np.uint32), "unsigned int": (ctypes.c_uint, np.uint32),
              "unsigned long": (ctypes.c_ulong, np.uint64), "unsigned long long": (ctypes.c_ulonglong, np.uint64),
              "size_t": (ctypes.c_size_t, np.uint64), "uint32_t": (ctypes.c_uint32, np.uint32),
              "uint64_t": (ctypes.c_uint64, np.uint64), "int32_t": (ctypes.c_int32, np.int32),
              "int64_t": (ctypes.c_int64, np.int64)}
_C_OF_IR = {"f64": "double", "f32": "float", "i64": "long", "i32": "int"}
_QUALIFIERS = {"const", "restrict", "__restrict", "__restrict__", "volatile", "signed"}


def _typedefs(fn: Function) -> dict[str, str]:
    """The type each ``typedef`` of C input names (``typedef double real;``: real -> double)."""
    out = {}
    for name, text, *_ in fn.attrs.get("c_typedefs") or []:
        m = re.fullmatch(rf"\s*typedef\s+([^;{{}}()]+?)\s*\b{re.escape(name)}\s*;\s*", text)
        if m:
            out[name] = m.group(1)
    return out


def _resolved(spelled: Optional[str], typedefs: dict[str, str]) -> Optional[str]:
    """``spelled`` with each typedef name replaced by what it names, through chains of them."""
    for _ in range(len(typedefs)):
        if spelled is None:
            break
        again = re.sub(r"[A-Za-z_]\w*", lambda m: typedefs.get(m.group(0), m.group(0)), spelled)
        if again == spelled:
            break
        spelled = again
    return spelled


def _declared(primal: Function) -> list[str]:
    """The declared C type of each parameter of ``primal``, typedefs resolved."""
    typedefs = _typedefs(primal)
    return [_resolved(s, typedefs) or s for s in primal.attrs["c_params"]]


def _c_spelling(spelled: str) -> tuple[str, int]:
    """``const double *restrict`` -> ("double", 1): the scalar type and the number of pointers
    and array dimensions (``double (*)[3]``, a pointer to rows of 3, -> ("double", 2))."""
    depth = spelled.count("*") + spelled.count("[")
    words = [w for w in spelled.replace("*", " ").replace("(", " ").replace(")", " ").split("[")[0].split()
             if w not in _QUALIFIERS]
    return " ".join(words), depth


def _params(primal: Function, grad: Function, wrt_indices: set[int], c_input: bool) -> list[Param]:
    info = grad_info(grad)
    assert info is not None
    shadowed = {grad.params[i].name_hint for i in info.shadows.values()}
    returned = {grad.params[i].name_hint for i in (info.returned or [])}
    # A differentiated shape-generic number's adjoint goes to a shadow of its own shape (a 0-d
    # array for a number) in Python and Numba output, not back as a result, as the docstring says.
    shadowed |= set(grad.attrs.get("generic_shadows") or {})
    returned -= shadowed
    generic = grad.attrs.get("shape_generic") or {}
    fewest = grad.attrs.get("generic_fewest") or {}
    c_params = _declared(primal) if c_input else None
    out = []
    for k, p in enumerate(primal.params[:user_param_count(primal)]):  # not the file-scope arrays added
        t: Type = p.type
        name = p.name_hint
        elem = t.elem if t.is_array else t  # type: ignore[attr-defined]
        dicts = {item[1]: d for d, items in (primal.attrs.get("dict_params") or {}).items() for item in items}
        if name in dicts:
            raise CheckRefused(f"parameter '{dicts[name]}' is a dict read by its keys; check makes numbers and "
                               "arrays only")
        tuples = {item: t for t, items in (primal.attrs.get("tuple_params") or {}).items() for item in items}
        if name in tuples:
            raise CheckRefused(f"parameter '{tuples[name]}' is a tuple the function unpacks; check makes numbers "
                               "and arrays only")
        if str(elem) == "str":
            raise CheckRefused(f"parameter '{name}' is a string; check makes numbers and arrays only")
        if str(elem) == "comm":  # an MPI communicator: the ranks' own (check --ranks)
            out.append(Param(name, "comm", np.dtype(object)))
            continue
        if str(elem) not in _DTYPES:
            raise CheckRefused(f"parameter '{name}' is of type {t}, for which check makes no values")
        dtype = _DTYPES[str(elem)]
        rows = False
        if c_params is not None:  # the C declaration decides what the compiled primal takes
            base, depth = _c_spelling(c_params[k])
            # double A[n][m] and double (*A)[m] are one block of memory, row-major, as NumPy's
            # arrays are; double **A is a table of row pointers, which a shim builds (check_shims).
            outside = c_params[k].split("(")[0].count("*")  # not the pointer of (*A)[m]
            if base in _double_structs(primal) and depth == 1:  # vec2 *p: its doubles, struct after struct
                base = "double"
            rows = (depth == 2 and "*" in c_params[k] and "(" not in c_params[k]  # double **A, double *A[]
                    and t.is_array and t.rank == 2)  # type: ignore[attr-defined]
            if base not in _C_SCALARS or (depth > 1 and not rows and (outside > 0 or c_params[k].count("*") > 1)):
                raise CheckRefused(f"parameter '{name}' is declared '{c_params[k]}'; check passes double, float, "
                                   "int, long and unsigned values (size_t, uint32_t too), one-level pointers to "
                                   "them, arrays of them (double A[n][m], double (*A)[m]) and tables of rows "
                                   "(double **A)")
            dtype = _C_SCALARS[base][1]
        kind = "array" if t.is_array else ("float" if t.is_float else "int")
        rank = t.rank if t.is_array else 0  # type: ignore[attr-defined]
        member = (primal.attrs.get("c_aggregates") or {}).get(name)  # a struct's leaf: g_nx is g->nx
        out.append(Param(name, kind, np.dtype(dtype), rank, name in shadowed,
                         name in returned or (kind == "float" and k in wrt_indices and name not in shadowed),
                         (fewest.get(name, 0), generic[name]) if name in generic else None,
                         member[0] + member[2] if member else "", rows))
    return out


def _double_structs(primal: Function) -> set[str]:
    """The C structs of ``primal``'s parameters whose members are all doubles (scalars or arrays):
    an array of them is one block of doubles, which the IR and the Python output take it for, and
    check makes as such (a struct with other members keeps its padding and is refused)."""
    mixed = {entry[0] for entry in primal.attrs.get("c_mixed") or []}
    out = set()
    for name, text, *_ in primal.attrs.get("c_structs") or []:
        members = [line.strip() for line in text.splitlines()[1:-1] if line.strip()]
        if name not in mixed and members and all(re.match(r"double\s+[A-Za-z_]\w*(\s*\[\s*\w+\s*\])*\s*(,\s*"
                                                          r"[A-Za-z_]\w*(\s*\[\s*\w+\s*\])*\s*)*;$", m)
                                                 for m in members):
            out.add(name)
    return out


def _shape(p: Param, settings: Settings, needed: Optional[tuple[int, ...]]) -> tuple[int, ...]:
    """An array's shape: as given (--sizes), else what the function reads of it at the integer
    values chosen (``needed``, where the extents are known), else --size on every axis. A
    shape-generic parameter may be given any number of axes it may have."""
    if p.generic is not None:
        fewest, most = p.generic
        shape = settings.sizes.get(p.name, needed or (settings.size,) * max(p.rank, fewest))
        if len(shape) < fewest or 0 <= most < len(shape):
            axes = "axis" if most == 1 else "axes"
            allowed = (f"may be a number or an array of up to {most} {axes}" if not fewest else
                       f"must be an array of {fewest} to {most} axes" if most >= 0 else
                       f"must be an array of at least {fewest} {'axis' if fewest == 1 else 'axes'}")
            raise CheckUsageError(f"--sizes {p.shown}: '{p.shown}' {allowed}, not {len(shape)} (spell a shape "
                                  "as 3x4)")
        return shape
    shape = settings.sizes.get(p.name, needed or (settings.size,) * p.rank)
    if len(shape) != p.rank:
        raise CheckUsageError(f"--sizes {p.shown}: '{p.shown}' has {p.rank} dimension(s), "
                              f"not {len(shape)} (spell a shape as 3x4)")
    if needed is not None and any(g < n for g, n in zip(shape, needed)):
        raise CheckUsageError(f"--sizes {p.shown}: at the integer values chosen, the function reads '{p.shown}' "
                              f"up to shape {'x'.join(map(str, needed))}, past {'x'.join(map(str, shape))}")
    return shape


def _size_symbols(module: Module, grad: Function, primal: Function,
                  options: pipeline.Options) -> list[tuple[str, list[tuple[str, int]]]]:
    """The size parameters the C gradient of a Python function takes for its annotations' shape
    symbols (``opt.lower_arrays.add_size_params``), in order, each with the array axes it is the
    extent of: check passes each the extent of the arrays it makes."""
    before = {p.name_hint for p in grad.params}
    pipeline.emit_source(module, "c", grad.name, "", options)  # lowers ``grad`` in place
    # (the gradient's own: an extent the code reads of an unannotated array, A_shape0)
    shapes = {**(primal.attrs.get("shapes") or {}), **(grad.attrs.get("shapes") or {})}
    out = []
    for p in grad.params:
        if p.name_hint in before:
            continue
        places = [(param, axis) for param, extents in shapes.items() for axis, e in enumerate(extents)
                  if isinstance(e, str) and e.strip() == p.name_hint]
        if not places:
            raise CheckRefused(f"the C gradient takes the size '{p.name_hint}', which is no array's extent in "
                               "the annotations; check cannot choose it")
        out.append((p.name_hint, places))
    return out


def _all_symbols(primal: Function, params: list[Param], sized: set[str]) -> bool:
    """Whether every array parameter is sized by shape symbols alone (then any shape will do)."""
    shapes = primal.attrs.get("shapes") or {}
    return all(p.kind != "array" or (p.name in sized and all(isinstance(e, str) and e.strip().isidentifier()
                                                              for e in shapes.get(p.name) or [None]))
               for p in params)


def _given_symbols(fn: Function, params: list[Param], settings: Settings) -> dict[str, int]:
    """The shape symbols of a Python function's annotations that --sizes gives through the arrays
    that carry them: ``P: "f64[t, k]"`` with ``--sizes P=6x3`` makes t 6 and k 3, for every array
    whose annotation names them (and for an integer parameter of that name that --sizes does not
    give itself). Arrays given shapes that disagree on a symbol are a usage error."""
    ints = {p.name for p in params if p.kind == "int"}
    found: dict[str, dict[str, int]] = {}  # symbol -> {"P.shape[0]": 6, ...}
    for name, extents in (fn.attrs.get("shapes") or {}).items():
        given = settings.sizes.get(name)
        if given is None or len(given) != len(extents):  # (a wrong rank: _shape's usage error)
            continue
        for axis, e in enumerate(extents):
            e = e.strip() if isinstance(e, str) else ""
            if e.isidentifier() and not (e in ints and e in settings.sizes):  # (a given integer: at least it)
                found.setdefault(e, {})[f"{name}.shape[{axis}]"] = given[axis]
    for symbol, places in found.items():
        if len(set(places.values())) > 1:
            spelled = ", ".join(f"{k} = {v}" for k, v in places.items())
            raise CheckUsageError(f"the shape symbol '{symbol}' is {spelled}; give the arrays shapes that agree "
                                  "(--sizes)")
    return {symbol: next(iter(places.values())) for symbol, places in found.items()}


def _annotated_shapes(fn: Function, ints: dict[str, int], settings: Settings,
                      symbols: dict[str, int]) -> dict[str, tuple[int, ...]]:
    """For each array parameter of a Python function annotated with a shape (``a: "f64[n, 1]"``),
    that shape: a literal extent as written, a symbol as the integer parameter it names, else as
    the --sizes of the arrays it is an extent of give it (``symbols``), else --size."""
    out = {}
    for name, extents in (fn.attrs.get("shapes") or {}).items():
        shape = []
        for e in extents:
            e = e.strip() if isinstance(e, str) else ""
            shape.append(int(e) if e.isdigit() else ints.get(e, symbols.get(e, settings.size)))
        out[name] = tuple(shape)
    return out


def _needed_shapes(module: Module, fn: Function, ints: dict[str, int]) -> dict[str, tuple[int, ...]]:
    """For each array parameter whose extents the code gives (``analysis.extents``: the
    gradient's "Array sizes" comment), its shape at the integer parameters' values ``ints``."""
    sizes = Sizes(module)
    by_index = {i: ints[p.name_hint] for i, p in enumerate(fn.params) if p.name_hint in ints}
    out = {}
    for i, (p, extent) in enumerate(zip(fn.params, sizes.extents(fn))):
        if extent is None or any(e is None or not e.params <= by_index.keys() for e in extent):
            continue
        out[p.name_hint] = tuple(max(e.value(by_index), sizes.cover_floor(fn, i, axis), 0)  # type: ignore
                                 for axis, e in enumerate(extent))
    return out


def _agreed_shapes(fn: Function, params: list[Param], ints: dict[str, int], settings: Settings,
                   shapes: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """``shapes`` with the extents a Python function takes to be equal (``fn.attrs
    ["same_extents"]``, which its gradient checks on entry) made so where --sizes does not give
    them: ``y = step(y)`` in a loop, ``step`` returning ``np.array([.., ..])``, makes ``y0`` 2 long,
    and two arrays a callee takes alike one length. Without it the primal fails on broadcasting
    (``--size`` on every axis) before check compares anything."""
    arrays = {p.name: p for p in params if p.kind == "array" and p.generic is None}
    out = dict(shapes)
    fixed: set[tuple[str, int]] = set()

    def value(side: tuple) -> Optional[int]:
        if side[0] == "const":
            return int(side[1])
        if side[0] == "int":
            return ints.get(side[1])
        if side[1] not in arrays:
            return None
        return settings.sizes.get(side[1], out.get(side[1], (settings.size,) * arrays[side[1]].rank))[side[2]]

    def settle(side: tuple, extent: int) -> None:
        name, axis = side[1], side[2]
        shape = list(out.get(name, (settings.size,) * arrays[name].rank))
        shape[axis] = extent
        out[name] = tuple(shape)
        fixed.add((name, axis))

    facts = [tuple(tuple(side) for side in fact["sides"]) for fact in fn.attrs.get("same_extents") or []]
    for _ in range(len(facts) + 1):  # until every fact that can be met is (each pass settles one at least)
        changed = False
        for a, b in facts:
            free = [side for side in (a, b) if side[0] == "dim" and side[1] in arrays
                    and side[1] not in settings.sizes and (side[1], side[2]) not in fixed]
            if not free:
                continue
            known = [side for side in (a, b) if side not in free]
            extent = value(known[0]) if known else max(value(side) or 0 for side in free)
            if extent is None or extent < 1:
                continue
            for side in free:
                settle(side, extent)
            changed = True
        if not changed:
            break
    return out


def _inputs(params: list[Param], settings: Settings, rng: np.random.Generator,
            needs: Callable[[dict[str, int]], dict[str, tuple[int, ...]]], guess: bool = True,
            ints: Optional[dict[str, int]] = None, defaults: Optional[dict[str, float]] = None) -> dict[str, Any]:
    """Random values of the parameters: the integers first, then arrays of the shapes the
    function reads at those integers (``needs``). Where the code does not tell an array's shape
    and none is given, ``guess``: --size on every axis (Python raises IndexError where that is too
    small); else (compiled C, which would read past the array's end) a usage error asking for it.
    ``ints``: the values of integer parameters that --sizes does not give (else --size);
    ``defaults``: the numbers Python parameters default to, which those not differentiated keep
    (``tol=1e-12`` drawn from --range could make a loop that runs until it converges never end)."""
    values: dict[str, Any] = {}
    for p in params:
        if p.kind == "int":
            given = settings.sizes.get(p.name)
            if given is not None and len(given) != 1:
                raise CheckUsageError(f"--sizes {p.shown}: '{p.shown}' is an integer; give it one value")
            values[p.name] = given[0] if given is not None else (ints or {}).get(p.name, settings.size)
    needed = needs(dict(values))
    for p in params:
        if p.kind == "int":
            continue
        if p.kind == "comm":
            values[p.name] = _world()
            continue
        if p.kind == "array" and not guess and p.name not in needed and p.name not in settings.sizes:
            example = "x".join([str(settings.size)] * p.rank)
            raise CheckUsageError(f"the code does not say how many elements of '{p.shown}' it reads (an index no "
                                  f"loop bounds, such as one read from another array): give its shape with "
                                  f"--sizes {p.shown}=N (e.g. --sizes {p.shown}={example}), large enough for every "
                                  "index the function reads at the integer values chosen")
        if p.kind == "array" and p.generic is not None and p.generic[0] == 0 and p.name not in settings.sizes \
                and p.dtype.kind == "f":
            # a shape-generic parameter typed an array where it meets one (R = s * np.eye(2)): a
            # number, which it may always be, as for one typed a number (--sizes gives it a shape)
            values[p.name] = float(p.dtype.type(rng.uniform(settings.low, settings.high)))
        elif p.kind == "float" and p.generic is not None and (p.name in settings.sizes or p.generic[0] > 0):
            # a shape-generic number given a shape (--sizes b=3), or one that must be an array
            values[p.name] = rng.uniform(settings.low, settings.high, _shape(p, settings, None)).astype(p.dtype)
        elif p.kind == "float" and not (p.wrt or p.shadowed) and p.name in (defaults or {}):
            values[p.name] = float(p.dtype.type(defaults[p.name]))  # type: ignore[index]
        elif p.kind == "float":
            values[p.name] = float(p.dtype.type(rng.uniform(settings.low, settings.high)))
        elif p.dtype.kind == "f":
            values[p.name] = rng.uniform(settings.low, settings.high,
                                         _shape(p, settings, needed.get(p.name))).astype(p.dtype)
        else:  # integer arrays are most often indices: keep them within an array of --size
            values[p.name] = rng.integers(0, settings.size, _shape(p, settings, needed.get(p.name))).astype(p.dtype)
    return values


def _copies(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in values.items()}


# ----------------------------------------------------------------------------------------------
# Building the two sides


def _import_python(path: str, name: str) -> Callable:
    """The user's function ``name``, from their file imported as a module (with the file's folder
    first on the path, as running it would have)."""
    folder = str(Path(path).resolve().parent)
    sys.path.insert(0, folder)
    try:
        module = load_module_file(Path(path), f"_s2sad_check_{Path(path).stem}")
    except Exception as e:
        raise CheckRefused(f"importing {path} to run '{name}' failed: {type(e).__name__}: {e}") from None
    finally:
        sys.path.remove(folder)
    fn = getattr(module, name, None)
    if not callable(fn):
        raise CheckRefused(f"{path} defines no function '{name}' once imported")
    return fn


_KEEP: list[Any] = []  # the folders of the libraries loaded, alive as long as the process


def _compile_c(files: list[str], flags: list[str], what: str) -> ctypes.CDLL:
    tmp = tempfile.TemporaryDirectory(prefix="s2sad_check_")
    _KEEP.append(tmp)
    lib = os.path.join(tmp.name, "lib.so")
    cc = "mpicc" if os.environ.get(UNDER_MPIRUN) else "gcc"  # (a distributed check: MPI's headers and library)
    try:
        r = subprocess.run([cc, *GCC_FLAGS, *flags, *files, "-o", lib, "-lm"], capture_output=True, text=True)
    except FileNotFoundError:
        raise CheckRefused(f"{cc} is not installed; check needs it for C") from None
    if r.returncode != 0:
        raise CheckRefused(f"{cc} could not compile {what}:\n{r.stderr.rstrip()}")
    return ctypes.CDLL(lib)


def _temporary(filename: str, text: str) -> str:
    """A file of its own in a temporary folder, kept while check runs."""
    folder = tempfile.TemporaryDirectory(prefix="s2sad_check_")
    _KEEP.append(folder)
    path = os.path.join(folder.name, filename)
    Path(path).write_text(text, encoding="utf-8")
    return path


def _shim_params(primal: Function, params: list[Param]) -> list[ShimParam]:
    """What check passes for each IR parameter, as the shims take it."""
    spelled = _declared(primal)
    return [ShimParam(p.kind, _c_spelling(spelled[k])[0], p.shadowed, p.wrt and p.kind == "float" and not p.shadowed,
                      p.rows) for k, p in enumerate(params)]


def _c_function(lib: ctypes.CDLL, name: str, what: str) -> Any:
    try:
        return getattr(lib, name)
    except AttributeError:
        raise CheckRefused(f"{what} has no external function '{name}' (is it static?)") from None


def _world() -> Any:
    """MPI_COMM_WORLD, as mpi4py holds it (a distributed check runs under mpirun)."""
    if not os.environ.get(UNDER_MPIRUN):
        raise CheckRefused("the function takes an MPI communicator: check it with --ranks N")
    from mpi4py import MPI

    return MPI.COMM_WORLD


def _c_args(p: Param, value: Any) -> list[Any]:
    """The C arguments of one value: itself, or a table of rows' block and its extents (its shim's)."""
    if p.rows:
        return [_c_arg(p, value), ctypes.c_long(value.shape[0]), ctypes.c_long(value.shape[1])]
    return [_c_arg(p, value)]


def _c_arg(p: Param, value: Any) -> Any:
    if p.kind == "comm":  # MPI_Comm: a pointer in Open MPI, an int in MPICH, as mpi4py holds its handle
        from mpi4py import MPI

        handle = MPI._handleof(value)
        return ctypes.c_void_p(handle) if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_void_p) \
            else ctypes.c_int(handle)
    ctype = np.ctypeslib.as_ctypes_type(p.dtype)
    if p.kind == "array":
        return value.ctypes.data_as(ctypes.POINTER(ctype))
    return ctype(value)


class _Primal:
    """The user's function: ``run(values)`` calls it on ``values`` (arrays changed in place)
    and gives its result."""

    def __init__(self, path: str, name: str, params: list[Param], c_result: Optional[str],
                 options: pipeline.Options, shims: Optional[tuple[list[Group], list[ShimParam]]] = None):
        self.params = params
        self.defaults: dict[str, float] = {}
        if is_c(path):
            # (math.h's M_PI and the other names a plain `gcc` build sees, which strict C99 hides)
            flags = ["-D_DEFAULT_SOURCE", *(f"-I{d}" for d in options.cflags.include_dirs)]
            flags += [f"-{flag}{text}" for flag, text in options.cflags.macros]
            called, entry = path, name
            if shims is not None:  # structs, tables of rows: called through a shim that builds them
                called = _temporary(f"check_{name}.c", primal_shim(os.path.abspath(path), name, *shims, c_result))
                entry = f"s2sad_check_{name}"
            # the C --derivatives files may define the functions they are the adjoints of
            fn = _c_function(_compile_c([called, *options.derivatives.files(c=True)], flags, path), entry, path)
            fn.restype = _C_SCALARS[_c_spelling(c_result)[0]][0] if c_result and c_result != "void" else None
            self.run = lambda values: fn(*[arg for p in params for arg in _c_args(p, values[p.name])])
        else:
            fn = _import_python(path, name)
            self.run = lambda values: fn(*[values[p.name] for p in params])
            # (a number a parameter defaults to: its value where the check need not vary it)
            self.defaults = {k: float(v.default) for k, v in inspect.signature(fn).parameters.items()
                             if isinstance(v.default, float)}


class _Gradient:
    """The generated gradient: ``run(values, shadows, d_return)`` calls it (``values`` and
    ``shadows`` changed in place) and gives the scalar adjoints, by parameter name."""

    def __init__(self, text: str, target: str, name: str, params: list[Param], seeded: bool,
                 seed_type: Optional[str], options: pipeline.Options, source_path: str,
                 symbols: list[tuple[str, list[tuple[str, int]]]] = (),  # type: ignore[assignment]
                 shims: Optional[tuple[list[Group], list[ShimParam]]] = None):
        self.params = params
        self.symbols = symbols  # C's size parameters, before the seed: the extents they are
        self.scalars = [p for p in params if p.wrt and p.kind == "float"]
        # A function of the input that a custom adjoint replaces is called, not copied: the input
        # is linked (C) or imported (Python) beside the derivatives files, as the user's build would.
        # So is the input whose file-scope arrays the gradient declares extern (parse.c_global_arrays).
        beside = [source_path] if options.derivatives or "\nextern " in text else []
        path = _temporary(f"grad_{name}.{'c' if target == 'c' else 'py'}", text)
        if target == "c":
            what = "the generated gradient"
            called, entry = path, grad_name(name)
            if shims is not None:  # structs, tables of rows: called through a shim that builds them
                try:
                    shim = gradient_shim(path, text, entry, *shims, seed_type or "double" if seeded else None)
                except ShimRefused as e:
                    raise CheckRefused(str(e)) from None
                called = _temporary(f"check_{entry}.c", shim)
                entry = f"s2sad_check_{entry}"
            files = [called, *options.derivatives.files(c=True), *beside]
            self.fn = _c_function(_compile_c(files, [], what), entry, what)
            self.fn.restype = None
            self.seed_ctype = _C_SCALARS[seed_type or "double"][0]
        else:
            try:
                imports = [*options.derivatives.files(c=False), *beside]
                module = load_module_file(Path(path), f"_s2sad_check_grad_{name}", imports)
            except ImportError as e:  # a custom adjoint's module, or what the input imports
                raise CheckRefused(f"importing the generated gradient failed: {e}") from None
            self.fn = getattr(module, grad_name(name))
        self.target = target
        self.seeded = seeded

    def run(self, values: dict[str, Any], shadows: dict[str, Any], d_return: float) -> dict[str, float]:
        args: list[Any] = []
        cells: dict[str, Any] = {}
        for p in self.params:
            if self.target == "c":
                args += _c_args(p, values[p.name])
                if p.shadowed:
                    args += _c_args(p, shadows[p.name])
                elif p in self.scalars:  # C gives a scalar's adjoint through a pointer, added to
                    cells[p.name] = np.ctypeslib.as_ctypes_type(p.dtype)(0.0)
                    args.append(ctypes.byref(cells[p.name]))
            else:
                args.append(values[p.name])
                if p.shadowed:
                    args.append(shadows[p.name])
        for _, [(param, axis), *_] in self.symbols:
            args.append(ctypes.c_long(values[param].shape[axis]))
        if self.seeded:
            args.append(self.seed_ctype(d_return) if self.target == "c" else d_return)
        got = self.fn(*args)
        if self.target == "c":
            return {k: float(c.value) for k, c in cells.items()}
        if len(self.scalars) == 1:
            got = (got,)
        return {p.name: float(g) for p, g in zip(self.scalars, got or ())}


# ----------------------------------------------------------------------------------------------
# The comparison


def _step(dtype: Any) -> float:
    return 1e-3 if dtype == np.float32 else 1e-6


def _compare(label: str, got: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> Row:
    got = np.asarray(got, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    err = np.abs(got - expected)
    scale = np.abs(expected)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(err == 0, 0.0, err / np.where(scale > 0, scale, np.inf))
        rel = np.where((err > 0) & (scale == 0), np.inf, rel)
    finite = np.isfinite(got).all() and np.isfinite(expected).all()
    ok = bool(finite and np.all(err <= atol + rtol * scale))
    worst = float(err.max()) if err.size else 0.0
    return Row(label, worst if finite else math.nan, float(rel.max()) if rel.size else 0.0, ok)


# The longest one run of the function (or of its gradient) may take at the inputs drawn: a loop
# that never ends there (a Newton iteration at a negative input) is reported, not waited on.
RUN_SECONDS = 60.0


class _RunTimedOut(Exception):
    """Raised in the thread running the function when ``RUN_SECONDS`` have passed."""


@contextlib.contextmanager
def _time_limit(what: str, values: dict[str, Any]) -> Iterator[None]:
    """Run the body for at most ``RUN_SECONDS`` (of Python code: a call into C ends first), then
    CheckRefused naming the numbers drawn. A timer raises in the running thread (the CLI runs in
    a worker thread of its own, where no signal arrives)."""
    thread = threading.get_ident()
    timer = threading.Timer(RUN_SECONDS, lambda: ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread), ctypes.py_object(_RunTimedOut)))
    timer.daemon = True
    timer.start()
    try:
        yield
    except _RunTimedOut:
        numbers = ", ".join(f"{k} = {v:.6g}" for k, v in values.items() if isinstance(v, float))
        raise CheckRefused(f"{what} did not return within {RUN_SECONDS:.0f} s at the random inputs"
                           f"{f' ({numbers})' if numbers else ''}\nhint: choose a --range where it ends (a loop "
                           "that runs until it converges may never end outside its domain), or smaller --sizes"
                           ) from None
    finally:
        timer.cancel()


def _in_child(run: Callable[[], "Report"]) -> "Report":
    """``run()`` in a child process, its report (or what it raised) sent back: compiled C that
    reads or writes past an array (an array given smaller than the code reads) kills the process
    that calls it, at once or later, when the heap it corrupted is next used; the child's death is
    said as a CheckRefused instead."""
    reader, writer = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    kept = len(_KEEP)
    pid = os.fork()
    if pid == 0:  # the child: its outcome goes back through the pipe, then it exits at once
        os.close(reader)
        try:
            outcome: tuple = ("report", run())
        except BaseException as e:  # noqa: BLE001 (every outcome goes back to the parent)
            outcome = ("raised", e)
        try:
            data = pickle.dumps(outcome)
        except Exception:
            data = pickle.dumps(("raised", CheckRefused(str(outcome[1]))))
        with os.fdopen(writer, "wb") as out:
            out.write(data)
        for folder in _KEEP[kept:]:  # (os._exit runs no finalizers: the child's folders go now)
            folder.cleanup()
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or not data:
        died = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else "an early exit"
        raise CheckRefused(f"the compiled code crashed ({died}) on the random inputs: C that reads or writes past "
                           "an array does\nhint: give the arrays the shapes the function reads with --sizes (at the "
                           "integer values chosen), or integers that keep within them (--sizes n=3)")
    kind, value = pickle.loads(data)
    if kind == "raised":
        raise value
    return value


def check(source: str, path: str, func: Optional[str], wrt: list[str], target: str, options: pipeline.Options,
          settings: Settings) -> Report:
    """Check the ``target`` gradient of ``func`` in the file ``path`` (whose text is ``source``)
    against central differences. DiagnosticError for a program s2sad cannot differentiate,
    CheckRefused and CheckUsageError as their names say. Compiled C runs in a child process
    (``_in_child``), but on several MPI ranks, which run it themselves."""
    if (is_c(path) or target == "c") and not os.environ.get(UNDER_MPIRUN) and hasattr(os, "fork"):
        return _in_child(lambda: _check_here(source, path, func, wrt, target, options, settings))
    return _check_here(source, path, func, wrt, target, options, settings)


def _check_here(source: str, path: str, func: Optional[str], wrt: list[str], target: str,
                options: pipeline.Options, settings: Settings) -> Report:
    """``check``, in this process."""
    if is_cuda(path):
        raise CheckRefused("check does not run CUDA kernels yet")
    text = pipeline.gradient_source(source, path, func, wrt, target, options)
    # The same translation, kept as IR this time: which parameters have shadows, which adjoints
    # are returned, whether there is a seed, read from the gradient rather than from its text.
    module = pipeline.gradient_module(source, path, func, wrt, options,
                                      shape_generic=target if target in ("py", "numba") else None)
    name = pipeline.choose_function(source, path, func, options.cflags)
    primal_module, _ = pipeline.primal_module(source, path, name, options)
    primal = primal_module.functions[name]
    grad = module.functions[grad_name(name)]
    communicates = any(is_mpi(op.name) for fn in primal_module.functions.values() for op in fn.walk())
    if communicates and settings.ranks is None:
        raise CheckRefused(f"'{name}' communicates over MPI: check it on several ranks, with --ranks N (run under "
                           "mpirun; README, Distributed programs)")
    ranks = _Ranks(bool(os.environ.get(UNDER_MPIRUN)))
    if primal.attrs.get("c_aggregates") and (not is_c(path) or target != "c"):
        raise CheckRefused(f"'{name}' takes a struct; check passes structs to C output only (--target c)")
    results = primal.result_types
    if len(results) > 1 or any(t.is_array for t in results):
        raise CheckRefused(f"'{name}' returns {'several values' if len(results) > 1 else 'an array'}; "
                           "check handles functions that return one number or nothing")
    seeded = grad_info(grad).d_return is not None  # type: ignore[union-attr]
    wrt_indices = pipeline.resolve_wrt(primal, wrt, primal_module.source_lines)
    params = _params(primal, grad, wrt_indices, is_c(path))
    sizable = {p.name for p in params if p.kind in ("array", "int") or p.generic is not None}
    spelled = {}
    members = {spelled: p.name for p in params if p.label for spelled in (p.label, p.label.replace("->", "."))}
    for given, shape in settings.sizes.items():
        key = given + "_" if given not in sizable and given + "_" in sizable else given  # --sizes in=5: in_
        key = members.get(key, key)  # --sizes g->nx=5 or g.nx=5: the leaf g_nx
        if key not in sizable:
            raise CheckUsageError(f"--sizes {given}: '{name}' has no array or integer parameter '{given}'")
        spelled[key] = shape
    settings = replace(settings, sizes=spelled)
    c_result = _resolved(primal.attrs.get("c_result"), _typedefs(primal))
    seed_type = _c_spelling(c_result)[0] if is_c(path) and c_result and results else (
        _C_OF_IR[str(results[0])] if results else None)
    symbols = _size_symbols(module, grad, primal, options) if target == "c" and not is_c(path) else []
    try:
        groups = shim_groups(primal, {k for k, p in enumerate(params) if p.rows}) if is_c(path) else None
    except ShimRefused as e:
        raise CheckRefused(str(e)) from None
    shims = None if groups is None else (groups, _shim_params(primal, params))
    primal_fn = _Primal(path, name, params, c_result, options, shims)
    gradient = _Gradient(text, target, name, params, seeded, seed_type, options, path, symbols,
                         shims if target == "c" else None)

    rng = np.random.default_rng(settings.seed + 7919 * ranks.rank)  # each rank its own inputs
    # An array whose every extent is a shape symbol is sized as Python's would be: C takes the
    # symbols from the shapes chosen (checked alike below).
    sized_by_symbols = {param for _, places in symbols for param, _ in places}
    given_symbols = {} if is_c(path) else _given_symbols(primal, params, settings)
    annotated = (lambda ints: {}) if is_c(path) else (
        lambda ints: _annotated_shapes(primal, ints, settings, given_symbols))
    inputs = _inputs(params, settings, rng,
                     lambda ints: _agreed_shapes(primal, params, ints, settings, {
                         **annotated(ints), **_needed_shapes(primal_module, primal, ints)}),
                     guess=not is_c(path) and (target != "c" or _all_symbols(primal, params, sized_by_symbols)),
                     ints=given_symbols, defaults=primal_fn.defaults)
    for symbol, places in symbols:
        # The arrays no --sizes gives take the longest extent any of the symbol's places needs.
        most = max(inputs[param].shape[axis] for param, axis in places)
        for param, axis in places:
            value = inputs[param]
            if param not in settings.sizes and value.shape[axis] < most:
                shape = value.shape[:axis] + (most,) + value.shape[axis + 1:]
                inputs[param] = rng.uniform(settings.low, settings.high, shape).astype(value.dtype) \
                    if value.dtype.kind == "f" else rng.integers(0, settings.size, shape).astype(value.dtype)
        extents = {f"{param}.shape[{axis}]": inputs[param].shape[axis] for param, axis in places}
        if len(set(extents.values())) > 1:
            spelled = ", ".join(f"{k} = {v}" for k, v in extents.items())
            raise CheckUsageError(f"the shape symbol '{symbol}' is {spelled}; give the arrays shapes that agree "
                                  "(--sizes)")
    shadowed = [p for p in params if p.shadowed]
    # (a shape-generic number's shadow: a 0-d array)
    seeds = {p.name: np.asarray(rng.normal(size=np.shape(inputs[p.name]))).astype(p.dtype) for p in shadowed}
    d_return = float(rng.normal()) if seeded else 0.0

    def J(values: dict[str, Any]) -> float:
        work = _copies(values)
        try:
            with _time_limit(f"'{name}'", values):
                result = primal_fn.run(work)
        except CheckRefused:
            raise
        except Exception as e:
            raise CheckRefused(f"'{name}' raised {type(e).__name__} on the random inputs: {e}\n"
                               "hint: give integer parameters their values with --sizes n=5, or choose "
                               "a --range where the function is defined") from None
        if seeded and np.ndim(result) != 0:  # (a shape-generic parameter given a shape it maps to the result)
            raise CheckRefused(f"'{name}' returns an array of shape {np.shape(result)} at the shapes given; check "
                               "handles functions that return one number or nothing")
        total = d_return * float(result) if seeded else 0.0
        for p in shadowed:
            total += float(np.sum(seeds[p.name].astype(np.float64) * work[p.name]))
        return ranks.sum(total)  # (a distributed program's J: every rank's part)

    if not math.isfinite(J(inputs)):
        raise CheckRefused(f"'{name}' is not finite at the random inputs; choose a --range where it is defined")
    exit_primal = _copies(inputs)
    primal_fn.run(exit_primal)

    work = _copies(inputs)
    shadows = {k: s.copy() for k, s in seeds.items()}
    # Numba's compiled loops cannot be stopped by the timer (it raises only in Python code): for
    # Numba output it would time the compilation alone, which a loaded machine may stretch past
    # the limit, and call that a loop that never ends.
    limit = _time_limit("the gradient", inputs) if target != "numba" else contextlib.nullcontext()
    try:
        with limit:
            adjoints = gradient.run(work, shadows, d_return)
    except CheckRefused:
        raise
    except Exception as e:
        raise CheckRefused(f"the gradient raised {type(e).__name__} on the random inputs: {e}") from None

    def difference(p: Param, index: Optional[tuple]) -> float:
        """dJ/d of this element of this rank's input (on several ranks, each rank's in turn is
        moved while all run the program: this rank's own turn gives its difference)."""
        element = index is not None and isinstance(inputs[p.name], np.ndarray)  # (not a shape-generic number)
        x0 = float(inputs[p.name][index] if element else inputs[p.name])
        h = _step(p.dtype) * max(1.0, abs(x0))
        mine = 0.0
        for turn in range(ranks.size):
            values = []
            points = []
            for sign in (1.0, -1.0):
                trial = _copies(inputs)
                point = float(p.dtype.type(x0 + sign * h))  # the step as the parameter's precision holds it
                if turn == ranks.rank:
                    if element:
                        trial[p.name][index] = point
                    else:
                        trial[p.name] = point
                points.append(point)
                values.append(J(trial))
            if turn == ranks.rank:
                mine = (values[0] - values[1]) / (points[0] - points[1])
        return mine

    rows = []
    for p in params:
        single = p.dtype == np.float32
        rtol, atol = (max(settings.rtol, 1e-2), max(settings.atol, 1e-3)) if single else (settings.rtol, settings.atol)
        if p.shadowed and np.dtype(p.dtype).kind in "iub":
            continue  # (an integer array the function writes has a shadow, but no derivative to compare)
        if p.shadowed:
            expected = np.zeros(np.shape(inputs[p.name]))
            for index in np.ndindex(*expected.shape):
                expected[index] = difference(p, index)
            rows.append(ranks.row(_compare(p.shown, shadows[p.name], expected, rtol, atol)))
        elif p.wrt:
            rows.append(ranks.row(_compare(p.shown, np.array(adjoints[p.name]), np.array(difference(p, None)), rtol,
                                           atol)))
    for p in params:  # the forward sweep must leave every array the primal changes as it does
        if p.kind == "array" and ranks.any(not np.array_equal(inputs[p.name], exit_primal[p.name])):
            tol = 1e-6 if p.dtype == np.float32 else 1e-12
            rows.append(ranks.row(_compare(f"{p.shown} (value at exit)", work[p.name], exit_primal[p.name], tol,
                                           tol)))
    level = f"--passes {options.passes}" if options.passes is not None else f"-O{options.level}"
    if options.checkpoint is not None:
        level += f", --checkpoint {options.checkpoint}"
    on = f", {ranks.size} ranks" if communicates else ""
    title = f"s2sad check: {grad_name(name)} of {path} (target {target}, {level}, seed {settings.seed}{on})"
    return Report(title, rows)
