"""CUDA's additions to C, as the preprocessor sees them, line for line.

A ``.cu`` file is C plus a few words that pycparser does not know. This module
turns them into something it does, keeping every column where the user wrote
it (the same discipline as ``c_preprocess``):

* the function qualifiers ``__global__``, ``__device__``, ``__host__``,
  ``__forceinline__`` and ``__noinline__`` become spaces; each is recorded with
  its position, and ``CFile`` gives it to the function declared next
  (``Qualifier``), so the front end knows kernels from device functions;
* ``__shared__`` becomes spaces too, recorded by line: the array declared on
  that line is block-shared memory (``c_lower``);
* constructs s2sad does not differentiate yet get a located error here, before
  pycparser would stumble on the C++ around them: dynamic shared memory
  (``extern __shared__``), texture and surface memory, cooperative groups,
  warp votes and old-style shuffles in the primal, kernel launches (``<<<...>>>``: host
  code, which s2sad does not read) and C++ templates.

``__syncthreads()`` is a call, lowered to ``gpu.sync`` by ``c_lower``. The
thread built-ins (``threadIdx.x`` ...) need nothing here: C parses them as
member accesses of undeclared names, and ``c_expr`` lowers them to ``gpu.*`` ops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ..diagnostics import Diagnostic
from ..ssa.ir import SourceLoc

FUNCTION_QUALIFIERS = ("__global__", "__device__", "__host__", "__forceinline__", "__noinline__")
SHARED = "__shared__"
_QUALIFIER = re.compile(r"\b(" + "|".join((*FUNCTION_QUALIFIERS, SHARED)) + r")\b")

# (pattern, message, hint): what s2sad reports instead of parsing.
_UNSUPPORTED: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"\bextern\s+__shared__\b"), "dynamic shared memory (extern __shared__) is not supported yet",
     "declare the shared array with a constant size: __shared__ double buf[256];"),
    (re.compile(r"\b__syncthreads_(?:count|and|or)\b|\b__syncwarp\b"),
     "barriers other than __syncthreads() are not supported", "use __syncthreads()"),
    (re.compile(r"\b(?:texture\s*<|tex[123]D\w*|tex1Dfetch|cudaTextureObject_t|surf[123]D\w*)"),
     "texture and surface memory are not supported", "read the data through a plain pointer"),
    (re.compile(r"\bcooperative_groups\b|\bthis_thread_block\b|\bthis_grid\b"),
     "cooperative groups are not supported", "use threadIdx/blockIdx and plain loops"),
    (re.compile(r"\b__(?:shfl(?!(?:_(?:down|up|xor))?_sync\b)\w*|ballot\w*|any_sync|all_sync|activemask|match\w*)\b"),
     "warp votes and this warp shuffle are not supported in the primal",
     "shuffle with __shfl_down_sync, __shfl_up_sync, __shfl_xor_sync or __shfl_sync, or write the reduction "
     "as a loop over shared memory"),
    (re.compile(r"\batomic(?!Add\s*\()\w+\s*\("),
     "atomic operations other than atomicAdd are not supported in the primal",
     "their result depends on the order of the threads: write each result to its own element"),
    (re.compile(r"<<<"), "kernel launches (<<<...>>>) are host code, which s2sad does not read",
     "keep the kernels s2sad differentiates in a file without host code"),
    (re.compile(r"\btemplate\s*<"), "C++ templates are not supported", "write the kernel for one type"),
    (re.compile(r"\b__constant__\b"), "__constant__ memory is not supported yet",
     "pass the table to the kernel as a const pointer (const double *w), copied with cudaMemcpy"),
    (re.compile(r"\b(?:make_)?(?:u?char|u?short|u?int|u?long|longlong|float|double)[1-4]\b"),
     "CUDA's vector types (double2, float4, ...) are not supported",
     "index a plain array instead: p[2 * i] and p[2 * i + 1] for the .x and .y of p[i]"),
]


@dataclass(frozen=True)
class Qualifier:
    """A CUDA function qualifier where the user wrote it."""

    word: str
    line: int
    col: int


def strip_cuda(line: str, lineno: int, filename: str, qualifiers: list[Qualifier],
               problems: list[Diagnostic], key: Optional[int] = None) -> str:
    """``line`` with its CUDA qualifiers blanked; the qualifiers and problems are appended.

    Problems name ``filename``'s ``lineno``; the qualifiers are recorded at ``key``, the
    preprocessor's running line (``c_source_map``), when given."""
    for pattern, message, hint in _UNSUPPORTED:
        m = pattern.search(line)
        if m is not None:
            col = m.start() + 1
            problems.append(Diagnostic(message, SourceLoc(filename, lineno, col, lineno, m.end() + 1), hint))
            return line
    out = []
    last = 0
    for m in _QUALIFIER.finditer(line):
        qualifiers.append(Qualifier(m.group(1), lineno if key is None else key, m.start() + 1))
        out.append(line[last:m.start()] + " " * len(m.group(1)))
        last = m.end()
    return "".join(out) + line[last:]
