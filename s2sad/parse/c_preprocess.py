"""A small C preprocessor that keeps every line and column where the user wrote it.

pycparser parses preprocessed C only, and the system preprocessor would drag
in glibc's headers (GNU extensions pycparser rejects) and renumber nothing we
could map back reliably. What numerical kernels use is small, so it is done
here, line for line, column for column:

* line continuations are joined first (as C's phase 2 does, so a ``//`` comment
  ending in a backslash goes on), the lost lines given back as blank lines after
  the joined one; then comments become spaces (newlines kept);
* ``#include <...>`` of a standard header is dropped (its types and math
  functions are known by name); ``#include "..."`` is an error: only the one
  file is read;
* ``#define NAME body`` (object-like) is recorded, not substituted: the front
  end evaluates ``NAME`` where it is used, so columns stay true. A body that
  is a type name (``#define real double``) is substituted textually, because
  the parser must see types; function-like macros are reported;
* ``#ifdef``/``#ifndef``/``#if 0``/``#if 1``/``#else``/``#endif`` keep or blank
  lines; ``#pragma`` lines are recorded by line (checkpoint and OpenMP pragmas
  are for later passes) and blanked;
* GNU spellings (``__restrict__``, ``__inline__``) become the standard keyword,
  padded with spaces to the same width;
* in a ``.cu`` file, CUDA's function qualifiers become spaces and are recorded
  by position (``cuda_source``).

The text handed to pycparser starts with a few typedefs (``size_t``,
``int64_t``, ``bool``...) and a ``#line 1`` marker, so coordinates name the
user's file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from ..diagnostics import Diagnostic, DiagnosticError
from ..ssa.ir import SourceLoc
from ..languages import is_cuda
from .cuda_source import Qualifier, strip_cuda

# Typedefs of the standard headers numerical code uses; enough for parsing and typing.
PRELUDE_TYPEDEFS = {
    "size_t": "unsigned long", "ptrdiff_t": "long", "ssize_t": "long",
    "int64_t": "long", "uint64_t": "unsigned long", "int32_t": "int", "uint32_t": "unsigned int",
    "int16_t": "short", "uint16_t": "unsigned short", "int8_t": "signed char", "uint8_t": "unsigned char",
    "bool": "_Bool",
}

# Object-like macros of the standard headers, as C expressions.
BUILTIN_MACROS = {
    "M_PI": "3.14159265358979323846", "M_PI_2": "1.57079632679489661923", "M_PI_4": "0.78539816339744830962",
    "M_1_PI": "0.31830988618379067154", "M_2_PI": "0.63661977236758134308", "M_2_SQRTPI": "1.12837916709551257390",
    "M_E": "2.7182818284590452354", "M_LOG2E": "1.4426950408889634074", "M_LOG10E": "0.43429448190325182765",
    "M_LN2": "0.69314718055994530942", "M_LN10": "2.30258509299404568402", "M_SQRT2": "1.41421356237309504880",
    "M_SQRT1_2": "0.70710678118654752440", "true": "1", "false": "0",
    # math.h's infinity (1e309 overflows to it when read) and float.h's limits.
    "INFINITY": "1e309", "HUGE_VAL": "1e309", "DBL_MAX": "1.7976931348623157e308",
    "DBL_MIN": "2.2250738585072014e-308", "DBL_EPSILON": "2.220446049250313e-16",
}

STANDARD_HEADERS = frozenset({
    "math.h", "stdlib.h", "stddef.h", "stdint.h", "stdbool.h", "string.h", "stdio.h", "float.h", "limits.h",
    "assert.h", "tgmath.h", "complex.h", "inttypes.h", "omp.h", "cuda_runtime.h",
})

_GNU_SPELLINGS = {"__restrict__": "restrict", "__restrict": "restrict", "__inline__": "inline",
                  "__inline": "inline", "__const": "const"}
_TYPE_WORDS = frozenset({"double", "float", "int", "long", "short", "char", "unsigned", "signed", "const",
                         "_Bool", *PRELUDE_TYPEDEFS})
_DIRECTIVE = re.compile(r"^\s*#\s*(\w*)\s*(.*)$")
_DEFINE = re.compile(r"^(\w+)(\()?")
_SPLICE = re.compile(r"\\[ \t\r]*$")
_WORD = re.compile(r"\b[A-Za-z_]\w*\b")


@dataclass(frozen=True)
class Macro:
    name: str
    body: str
    loc: SourceLoc


@dataclass
class Preprocessed:
    text: str  # what pycparser parses
    macros: dict[str, Macro] = field(default_factory=dict)
    pragmas: dict[int, str] = field(default_factory=dict)  # source line -> pragma text
    includes: list[str] = field(default_factory=list)
    qualifiers: list[Qualifier] = field(default_factory=list)  # CUDA's, in source order


def strip_comments(source: str) -> str:
    """Comments to spaces, keeping newlines and string literals as they are."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "/" and source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in source[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append(source[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _join_continuations(lines: list[str]) -> list[str]:
    """``a \\`` + ``b`` -> ``a b`` on the first line and a blank line after, so numbering holds.

    Spliced as C does: nothing in between (``dou\\`` + ``ble`` is ``double``); like gcc, blanks
    between the backslash and the end of the line are allowed."""
    out: list[str] = []
    pending: Optional[str] = None
    owed = 0
    for line in lines:
        if pending is not None:
            line = pending + line
            pending = None
        spliced = _SPLICE.search(line)
        if spliced:
            pending = line[: spliced.start()]
            owed += 1
            continue
        out.append(line)
        out.extend([""] * owed)
        owed = 0
    if pending is not None:
        out.append(pending)
        out.extend([""] * (owed - 1))
    return out


def _pad_replace(line: str, words: dict[str, str]) -> str:
    """Replace whole words, padding with spaces when the replacement is shorter."""
    def sub(m: re.Match) -> str:
        new = words.get(m.group(0))
        if new is None:
            return m.group(0)
        return new + " " * max(0, len(m.group(0)) - len(new))

    return _WORD.sub(sub, line)


def preprocess(source: str, filename: str) -> Preprocessed:
    """The text for pycparser plus the macros and pragmas, or every problem found."""
    # Translation phase 2 before phase 3, as in C: splice lines first, so a `//` comment ending
    # in a backslash comments out the next line too.
    lines = strip_comments("\n".join(_join_continuations(source.split("\n")))).split("\n")
    problems: list[Diagnostic] = []
    result = Preprocessed("")
    type_macros: dict[str, str] = dict(_GNU_SPELLINGS)
    active: list[bool] = []  # one entry per open #if: whether its lines are kept
    out: list[str] = []
    cuda = is_cuda(filename)
    for k, line in enumerate(lines):
        lineno = k + 1
        m = _DIRECTIVE.match(line)
        if m is None:
            keep = all(active)
            if cuda and keep:
                line = strip_cuda(line, lineno, filename, result.qualifiers, problems)
            out.append(_pad_replace(line, type_macros) if keep and line.strip() else "" if not keep else line)
            continue
        out.append("")
        word, rest = m.group(1), m.group(2).strip()
        col = line.index("#") + 1
        loc = SourceLoc(filename, lineno, col, lineno, col + len(line.strip()))
        if word in ("ifdef", "ifndef"):
            defined = rest.split()[0] in result.macros if rest else False
            active.append(defined if word == "ifdef" else not defined)
            continue
        if word == "if":
            value = {"0": False, "1": True}.get(rest)
            if value is None:
                problems.append(Diagnostic("only '#if 0' and '#if 1' conditions are supported", loc,
                                           "use #ifdef/#ifndef, or remove the condition"))
                value = True
            active.append(value)
            continue
        if word in ("else", "endif"):
            if not active:
                problems.append(Diagnostic(f"'#{word}' without '#if'", loc))
            elif word == "else":
                active[-1] = not active[-1]
            else:
                active.pop()
            continue
        if not all(active):
            continue
        if word == "include":
            header = rest.strip("<>\" ")
            if rest.startswith('"'):
                problems.append(Diagnostic(f"cannot include \"{header}\": s2sad reads only {filename}", loc,
                                           "put the functions the gradient needs in this file"))
            elif header not in STANDARD_HEADERS:
                problems.append(Diagnostic(f"unknown standard header <{header}>", loc,
                                           f"s2sad knows: {', '.join(sorted(STANDARD_HEADERS))}"))
            result.includes.append(header)
        elif word == "define":
            d = _DEFINE.match(rest)
            if d is None:
                problems.append(Diagnostic("malformed #define", loc))
                continue
            name, body = d.group(1), rest[d.end():].strip()
            if d.group(2):
                problems.append(Diagnostic(f"function-like macro '{name}' is not supported", loc,
                                           f"write a static inline function instead of the macro {name}(...)"))
                continue
            words = body.split()
            if words and all(w in _TYPE_WORDS for w in words):
                type_macros[name] = body
            else:
                result.macros[name] = Macro(name, body, loc)
        elif word == "undef":
            result.macros.pop(rest, None)
            type_macros.pop(rest, None)
        elif word == "pragma":
            result.pragmas[lineno] = rest
        elif word in ("error", "warning", "line", ""):
            continue
        else:
            problems.append(Diagnostic(f"preprocessor directive '#{word}' is not supported", loc))
    if active:
        problems.append(Diagnostic("'#if' without '#endif'", SourceLoc(filename, len(lines), 1)))
    if problems:
        raise DiagnosticError(problems, source.splitlines())
    prelude = "".join(f"typedef {base} {name};\n" for name, base in PRELUDE_TYPEDEFS.items())
    result.text = prelude + f'#line 1 "{filename}"\n' + "\n".join(out)
    return result
