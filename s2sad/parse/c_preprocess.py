"""A small C preprocessor that keeps every line and column where the user wrote it.

pycparser parses preprocessed C only, and the system preprocessor would drag in
glibc's headers (GNU extensions pycparser rejects) and lose the columns a
diagnostic needs. So s2sad preprocesses itself, as C99 6.10 says, with one
difference that keeps positions true: constants stay names.

* line continuations are joined first (as C's phase 2 does, so a ``//`` comment
  ending in a backslash goes on), the lost lines given back as blank lines after
  the joined one; then comments become spaces (newlines kept);
* ``#include "local.h"`` is read from the including file's directory, then from
  the ``-I`` directories in order (``CFlags``); its lines take the place of the
  ``#include`` line, each keeping its own file and line (``c_source_map``), so
  diagnostics, pragmas and CUDA qualifiers in a header say where they are.
  ``#pragma once`` and include guards work as in C. ``#include <...>`` of a
  standard header is not read (its types and math functions are known by name,
  ``PRELUDE_TYPEDEFS``, ``BUILTIN_MACROS``); another ``<...>`` header is read
  from a ``-I`` directory. A header not found is a located error naming the
  directories searched;
* ``#define``, ``#undef``, ``-D`` and ``-U``: an object-like macro whose body is a
  constant (``100``, ``-1e-8``, ``(2.0 * N)``: ``_is_constant``) is recorded, not
  substituted: the front end evaluates ``N`` where it is used, so columns stay
  true and the C output prints ``N`` with its ``#define``. Every other macro,
  function-like ones included, is expanded where it is used (``c_macros``), and
  the tokens of an expansion point at the call. If a recorded macro is later
  redefined or undefined, one name cannot stand for both: the file is read again
  with that macro expanded everywhere;
* ``#if``/``#elif`` evaluate C's integer constant expressions (``c_condition``),
  with ``#ifdef``, ``#ifndef``, ``#else``, ``#endif``; lines of groups not taken
  become blank. ``#pragma`` lines are recorded by running line (checkpoint and
  OpenMP pragmas are for later passes) and blanked; ``#error`` is a located error;
* GNU spellings (``__restrict__``, ``__inline__``) become the standard keyword, and
  ``__attribute__((...))`` and ``__extension__`` are dropped, wherever a macro puts them;
* in a ``.cu`` file, CUDA's function qualifiers become spaces and are recorded
  by position (``cuda_source``).

The text handed to pycparser starts with a few typedefs (``size_t``,
``int64_t``, ``bool``...) and a ``#line 1`` marker, so coordinates name the
user's file, and their lines are running lines.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Optional

from ..diagnostics import Diagnostic, DiagnosticError
from ..ssa.ir import SourceLoc
from ..languages import is_cuda
from ..source_files import SourceFileError, c_text, read_source_bytes, source_lines
from .c_condition import ConditionProblem, evaluate
from .c_macros import Definition, Expander, MacroProblem, NeedMore, Token, define, spell, tokenize, would_paste
from .c_source_map import Piece, SourceMap
from .cuda_source import Qualifier, strip_cuda

# Typedefs of the standard headers numerical code uses; enough for parsing and typing.
PRELUDE_TYPEDEFS = {
    "size_t": "unsigned long", "ptrdiff_t": "long", "ssize_t": "long",
    "int64_t": "long", "uint64_t": "unsigned long", "int32_t": "int", "uint32_t": "unsigned int",
    "int16_t": "short", "uint16_t": "unsigned short", "int8_t": "signed char", "uint8_t": "unsigned char",
    "intptr_t": "long", "uintptr_t": "unsigned long", "intmax_t": "long", "uintmax_t": "unsigned long",
    # stdint.h's fastest and smallest types of at least N bits, as glibc on x86-64 and AArch64 has them
    "int_fast8_t": "signed char", "int_fast16_t": "long", "int_fast32_t": "long", "int_fast64_t": "long",
    "uint_fast8_t": "unsigned char", "uint_fast16_t": "unsigned long", "uint_fast32_t": "unsigned long",
    "uint_fast64_t": "unsigned long", "int_least8_t": "signed char", "int_least16_t": "short",
    "int_least32_t": "int", "int_least64_t": "long", "uint_least8_t": "unsigned char",
    "uint_least16_t": "unsigned short", "uint_least32_t": "unsigned int", "uint_least64_t": "unsigned long",
    "clock_t": "long", "time_t": "long",
    "bool": "_Bool",
}

# Object-like macros of the standard headers, as C expressions.
BUILTIN_MACROS = {
    "M_PI": "3.14159265358979323846", "M_PI_2": "1.57079632679489661923", "M_PI_4": "0.78539816339744830962",
    "M_1_PI": "0.31830988618379067154", "M_2_PI": "0.63661977236758134308", "M_2_SQRTPI": "1.12837916709551257390",
    "M_E": "2.7182818284590452354", "M_LOG2E": "1.4426950408889634074", "M_LOG10E": "0.43429448190325182765",
    "M_LN2": "0.69314718055994530942", "M_LN10": "2.30258509299404568402", "M_SQRT2": "1.41421356237309504880",
    "M_SQRT1_2": "0.70710678118654752440", "true": "1", "false": "0",
    # math.h's infinity (1e309 overflows to it when read) and not-a-number (inf - inf), float.h's limits.
    "NULL": "0", "INFINITY": "1e309", "HUGE_VAL": "1e309", "NAN": "(1e309 - 1e309)",
    "DBL_MAX": "1.7976931348623157e308",
    "DBL_MIN": "2.2250738585072014e-308", "DBL_EPSILON": "2.220446049250313e-16",
    "FLT_MAX": "3.40282347e+38f", "FLT_MIN": "1.17549435e-38f", "FLT_EPSILON": "1.1920929e-07f",
    # limits.h's and stdint.h's signed limits (the unsigned ones past LONG_MAX are outside what
    # s2sad's signed integers hold), stdlib.h's exit statuses and RAND_MAX (glibc's values)
    "CHAR_BIT": "8", "SCHAR_MAX": "127", "SCHAR_MIN": "(-128)", "SHRT_MAX": "32767", "SHRT_MIN": "(-32768)",
    "INT_MAX": "2147483647", "INT_MIN": "(-2147483647 - 1)", "UINT_MAX": "4294967295u",
    "LONG_MAX": "9223372036854775807L", "LONG_MIN": "(-9223372036854775807L - 1)",
    "INT32_MAX": "2147483647", "INT32_MIN": "(-2147483647 - 1)", "INT64_MAX": "9223372036854775807L",
    "INT64_MIN": "(-9223372036854775807L - 1)", "EXIT_SUCCESS": "0", "EXIT_FAILURE": "1",
    "RAND_MAX": "2147483647",
}

STANDARD_HEADERS = frozenset({
    "math.h", "stdlib.h", "stddef.h", "stdint.h", "stdbool.h", "string.h", "stdio.h", "float.h", "limits.h",
    "assert.h", "tgmath.h", "complex.h", "inttypes.h", "omp.h", "cuda_runtime.h", "mpi.h",
    # what a numerical file includes for its own main or timing (their types above: ssize_t, clock_t)
    "time.h", "errno.h", "ctype.h", "sys/types.h",
})

# The handle types a known header declares, typedefs of int for parsing: the front end reads
# what the calls pass (``c_mpi``), never the handles' own values. Only where the file includes it.
HEADER_TYPEDEFS = {
    "mpi.h": {name: "int" for name in ("MPI_Comm", "MPI_Datatype", "MPI_Op", "MPI_Request", "MPI_Status")},
}


def header_typedef(name: str) -> bool:
    """Whether ``name`` is a type a known header declares (``HEADER_TYPEDEFS``)."""
    return any(name in names for names in HEADER_TYPEDEFS.values())

_GNU_SPELLINGS = {"__restrict__": "restrict", "__restrict": "restrict", "__inline__": "inline",
                  "__inline": "inline", "__const": "const", "__const__": "const", "__volatile__": "volatile",
                  "__signed__": "signed"}
_GNU_DROPPED = frozenset({"__extension__"})
_GNU_ATTRIBUTES = frozenset({"__attribute__", "__attribute"})
# The names a code line must hold for the preprocessor to change it (with the macros defined).
_GNU_WORDS = frozenset(_GNU_SPELLINGS) | _GNU_DROPPED | _GNU_ATTRIBUTES
_WORD = re.compile(r"[A-Za-z_]\w*")
# Words a constant's body may hold besides macros: casts (``((double)N)``).
_TYPE_WORDS = frozenset({"double", "float", "int", "long", "short", "char", "unsigned", "signed", "const",
                         "_Bool", *PRELUDE_TYPEDEFS})
_DIRECTIVE = re.compile(r"^\s*#\s*(\w*)\s*(.*)$")
_SPLICE = re.compile(r"\\[ \t\r]*$")
_MAX_DEPTH = 200  # nested #include, as gcc's limit: a header that includes itself without a guard
COMMAND_LINE = "<command-line>"


@dataclass(frozen=True)
class Macro:
    """A recorded constant: the front end reads ``body`` (other macros in it expanded)."""

    name: str
    body: str
    loc: SourceLoc


@dataclass(frozen=True)
class CFlags:
    """What the command line adds to reading a C file: the ``-I`` directories, searched in
    order, and the ``-D``/``-U`` macros, applied in order before the file (as gcc does):
    ``("D", "N=4")``, ``("D", "DEBUG")`` (defined as 1), ``("U", "N")``."""

    include_dirs: tuple[str, ...] = ()
    macros: tuple[tuple[str, str], ...] = ()

    def spelled(self) -> list[str]:
        """The flags as a command line gives them again."""
        return [f"-I {d}" for d in self.include_dirs] + [f"-{flag} {text}" for flag, text in self.macros]


def macro_flag_problem(flag: str, text: str) -> Optional[str]:
    """Why ``-D text`` or ``-U text`` is malformed, or None."""
    if flag == "U":
        return None if re.fullmatch(r"[A-Za-z_]\w*", text) else f"-U {text}: not a macro name"
    try:
        _flag_definition(text)
    except MacroProblem as p:
        return f"-D {text}: {p.message}"
    return None


def _flag_definition(text: str) -> Definition:
    """``-D NAME``, ``-D NAME=VALUE`` or ``-D 'F(x)=BODY'`` as a definition (gcc's reading)."""
    name, eq, value = text.partition("=")
    return define(tokenize(f"{name} {value if eq else '1'}", 0))


@dataclass
class Preprocessed:
    text: str  # what pycparser parses
    macros: dict[str, Macro] = field(default_factory=dict)  # the recorded constants
    pragmas: dict[int, str] = field(default_factory=dict)  # running line -> pragma text
    includes: list[str] = field(default_factory=list)  # the headers read or known, once each, as #include names them
    qualifiers: list[Qualifier] = field(default_factory=list)  # CUDA's, in source order, by running line
    sources: SourceMap = field(default_factory=lambda: SourceMap(""))


def strip_comments(source: str) -> str:
    """Comments to spaces, keeping newlines and string literals as they are."""
    return scan_comments(source)[0]


def scan_comments(source: str) -> tuple[str, Optional[int]]:
    """``strip_comments``' text, and the offset of a ``/*`` that is never closed (None when
    every comment ends): C refuses such a file, and the rest of it would vanish silently."""
    unterminated: Optional[int] = None
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
            if j < 0:
                unterminated = i
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
    return "".join(out), unterminated


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


def preprocess(source: str, filename: str, path: Optional[str] = None, flags: CFlags = CFlags()) -> Preprocessed:
    """The text for pycparser plus the macros and pragmas, or every problem found.

    ``filename`` is the name diagnostics give the file; ``path`` where it is (headers are
    looked for beside it; default: ``filename`` itself)."""
    directory = os.path.dirname(path if path is not None else filename)
    reader = _Reader(filename, directory, flags, is_cuda(filename), frozenset())
    result = reader.read(source)
    textual = reader.textual()
    if textual:  # a recorded constant changes its value: read again, expanding it everywhere
        reader = _Reader(filename, directory, flags, is_cuda(filename), textual)
        result = reader.read(source)
    return result


@dataclass
class _Frame:
    """One open ``#if``: whether its enclosing group is kept, whether this group is, whether a
    group of it was taken, whether ``#else`` was seen, and where the ``#if`` is."""

    parent: bool
    active: bool
    taken: bool
    seen_else: bool
    loc: SourceLoc


class _Reader:
    """One reading of the file and its headers (``preprocess`` may need two)."""

    def __init__(self, main: str, directory: str, flags: CFlags, cuda: bool, textual: frozenset[str]):
        self.main = main
        self.directory = directory
        self.flags = flags
        self.cuda = cuda
        self.forced = textual  # recorded constants to expand anyway (see ``textual``)
        self.sources = SourceMap(main)
        self.table: dict[str, Definition] = {}
        self.defined_at: dict[str, SourceLoc] = {}
        self.constants: set[str] = set()  # the names whose definition is recorded, not expanded
        self.ever_constant: set[str] = set()
        self.changed: set[str] = set()  # names redefined differently or undefined
        self.problems: list[Diagnostic] = []
        self.result = Preprocessed("", sources=self.sources)
        self.once: set[str] = set()  # the real paths of headers with #pragma once
        self.missing: set[str] = set()  # the headers not found
        self.depth = 0
        self.code_expander = Expander(self.table, keep=lambda name: name in self.constants)
        self.all_expander = Expander(self.table)

    # -- the whole reading ------------------------------------------------------------------------
    def read(self, source: str) -> Preprocessed:
        for flag, text in self.flags.macros:
            if flag == "U":
                self._undefine(text)
                continue
            try:
                self._define(_flag_definition(text), SourceLoc(COMMAND_LINE, 1, 1))
            except MacroProblem as p:
                self.problems.append(Diagnostic(f"-D {text}: {p.message}", None, p.hint))
        self._file(source, self.main, self.directory, None)
        if self.problems:
            raise DiagnosticError(self.problems, self.sources.source_lines())
        for name in sorted(self.constants, key=list(self.table).index):
            d = self.table[name]
            try:
                body = spell(self.code_expander.expand(list(d.body)))
            except MacroProblem:
                body = d.text  # the front end reports it if a function uses it
            self.result.macros[name] = Macro(name, body, self.defined_at[name])
        typedefs = dict(PRELUDE_TYPEDEFS)
        for header in self.result.includes:
            typedefs.update(HEADER_TYPEDEFS.get(header, {}))
        prelude = "".join(f"typedef {base} {name};\n" for name, base in typedefs.items())
        self.result.text = prelude + f'#line 1 "{self.main}"\n' + "\n".join(self.sources.code)
        return self.result

    def textual(self) -> frozenset[str]:
        """The recorded constants that must be expanded instead: those whose definition changes
        along the file, and those whose body uses one of them."""
        out = set(self.changed)
        grew = True
        while grew:
            grew = False
            for name in self.constants - out:
                if any(t.text in out for t in self.table[name].body):
                    out.add(name)
                    grew = True
        return frozenset(out) if out & self.ever_constant else frozenset()

    # -- one file ---------------------------------------------------------------------------------
    def _file(self, text: str, display: str, directory: str, real: Optional[str]) -> None:
        """Read ``text`` (the file shown as ``display``), appending its lines to the output."""
        self.sources.files[display] = source_lines(text)
        raw = text.split("\n")
        joined = "\n".join(_join_continuations(raw))
        stripped, unterminated = scan_comments(joined)
        lines = stripped.split("\n")
        if unterminated is not None:
            line = joined.count("\n", 0, unterminated) + 1
            col = unterminated - (joined.rfind("\n", 0, unterminated) + 1) + 1
            self.problems.append(Diagnostic("unterminated comment", SourceLoc(display, line, col, line, col + 2),
                                            "close it with */ (C comments do not nest)"))
        frames: list[_Frame] = []
        k = 0
        while k < len(lines):
            running = self.sources.add(display, k + 1, raw[k].rstrip("\r"))
            m = _DIRECTIVE.match(lines[k])
            if m is None:
                if all(f.active for f in frames):
                    k = self._code(lines, raw, k, running, display)
                else:
                    self.sources.code.append("")
                k += 1
                continue
            self.sources.code.append("")
            self._directive(m, lines[k], running, display, k + 1, directory, real, frames)
            k += 1
        for f in frames:
            self.problems.append(Diagnostic("'#if' without '#endif'", f.loc, "close it with #endif in the same file"))

    def _code(self, lines: list[str], raw: list[str], k: int, running: int, display: str) -> int:
        """The code line ``k`` (and those a macro call or attribute spills onto), expanded;
        returns the last line used."""
        first = self._cuda(lines[k], running, display, k + 1)
        words = set(_WORD.findall(first))
        if words.isdisjoint(self.table) and words.isdisjoint(_GNU_WORDS):
            # No macro and no GNU spelling (nor a function-like macro's name that a later line
            # would call): the line as it is, untokenized (most lines of a long file).
            self.sources.code.append(first)
            return k
        tokens = tokenize(first, running)
        used = [running]
        while True:
            more = k + 1 < len(lines) and _DIRECTIVE.match(lines[k + 1]) is None
            try:
                result = _gnu(self.code_expander.expand(tokens, final=not more), final=not more)
                break
            except NeedMore:
                k += 1
                line = self.sources.add(display, k + 1, raw[k].rstrip("\r"))
                tokens = tokens + tokenize(self._cuda(lines[k], line, display, k + 1), line)
                used.append(line)
            except MacroProblem as p:
                self.problems.append(Diagnostic(p.message, self._token_loc(p.token), p.hint))
                result = tokens
                break
        if len(used) == 1 and len(result) == len(tokens) and all(a is b for a, b in zip(result, tokens)):
            self.sources.code.append(first)  # nothing changed: the line as it is, columns and all
            return k
        text, pieces = _layout(result, running)
        self.sources.code.append(text)
        self.sources.pieces[running] = pieces
        self.sources.code.extend([""] * (len(used) - 1))
        return k

    def _cuda(self, line: str, running: int, display: str, own: int) -> str:
        if not self.cuda:
            return line
        return strip_cuda(line, own, display, self.result.qualifiers, self.problems, key=running)

    def _token_loc(self, token: Optional[Token]) -> Optional[SourceLoc]:
        if token is None:
            return None
        if token.line == 0:
            return SourceLoc(COMMAND_LINE, 1, 1)
        width = len(token.text) if token.exact else (token.end_col - token.col if token.end_line == token.line else 1)
        return self.sources.line_loc(token.line, token.col, token.col + max(1, width))

    # -- directives ---------------------------------------------------------------------------------
    def _directive(self, m: re.Match, line: str, running: int, display: str, own: int, directory: str,
                   real: Optional[str], frames: list[_Frame]) -> None:
        word, rest = m.group(1), m.group(2).rstrip()
        tokens = tokenize(m.group(2), running, m.start(2) + 1)
        col = line.index("#") + 1
        loc = SourceLoc(display, own, col, own, col + len(line.strip()))
        active = all(f.active for f in frames)
        if word in ("if", "ifdef", "ifndef"):
            value = active and self._condition(word, tokens, loc)
            frames.append(_Frame(active, value, value, False, loc))
            return
        if word in ("elif", "elifdef", "elifndef", "else", "endif"):
            if not frames:
                self.problems.append(Diagnostic(f"'#{word}' without '#if'", loc))
                return
            f = frames[-1]
            if word == "endif":
                frames.pop()
            elif f.seen_else:
                self.problems.append(Diagnostic(f"'#{word}' after '#else'", loc,
                                                "#else is the last group of its #if"))
            elif word == "else":
                f.active, f.taken, f.seen_else = f.parent and not f.taken, True, True
            else:
                f.active = f.parent and not f.taken and self._condition(word[2:], tokens, loc)
                f.taken = f.taken or f.active
            return
        if not active:
            return
        if word == "include":
            self._include(rest, m.start(2) + 1, tokens, loc, directory, display)
        elif word == "define":
            try:
                d = define(tokens)
            except MacroProblem as p:
                self.problems.append(Diagnostic(p.message, self._token_loc(p.token) or loc, p.hint))
                return
            self._define(d, self._token_loc(tokens[0]) or loc)
        elif word == "undef":
            if not tokens or tokens[0].kind != "id":
                self.problems.append(Diagnostic("#undef needs a macro name", loc))
                return
            self._undefine(tokens[0].text)
        elif word == "pragma":
            if rest.split() == ["once"]:
                if real is not None:
                    self.once.add(real)
            else:
                self.result.pragmas[running] = rest.strip()
        elif word == "error":
            self.problems.append(Diagnostic(f"#error {rest.strip()}".rstrip(), loc,
                                            "the #if conditions around it chose this #error "
                                            "(set macros with -D NAME=VALUE)"))
        elif word in ("warning", "line", "ident", "sccs", ""):
            return
        else:
            self.problems.append(Diagnostic(f"preprocessor directive '#{word}' is not supported", loc))

    def _condition(self, word: str, tokens: list[Token], loc: SourceLoc) -> bool:
        """Whether the group of ``#if``/``#ifdef``/``#ifndef`` (``word``; ``#elif...`` without
        its ``el``) with the condition ``tokens`` is kept."""
        if word in ("ifdef", "ifndef"):
            if not tokens or tokens[0].kind != "id":
                self.problems.append(Diagnostic(f"#{word} needs a macro name", loc, f"write #{word} NAME"))
                return False
            return (tokens[0].text in self.table) == (word == "ifdef")
        try:
            return evaluate(tokens, self.all_expander)
        except ConditionProblem as p:
            where = self._token_loc(p.token) if p.token is not None else None
            self.problems.append(Diagnostic(p.message, where or SourceLoc(loc.file, loc.line, loc.end_col),
                                            p.hint))
            return False

    def _define(self, d: Definition, loc: SourceLoc) -> None:
        old = self.table.get(d.name)
        if old is not None and not old.same_as(d):
            self.changed.add(d.name)
        self.table[d.name] = d
        self.defined_at[d.name] = loc
        if d.params is None and d.name not in self.forced and _is_constant(d.body, self.table):
            self.constants.add(d.name)
            self.ever_constant.add(d.name)
        else:
            self.constants.discard(d.name)

    def _undefine(self, name: str) -> None:
        if self.table.pop(name, None) is not None:
            self.changed.add(name)
        self.constants.discard(name)

    def _include(self, rest: str, rest_col: int, tokens: list[Token], loc: SourceLoc, directory: str,
                 display: str) -> None:
        m = re.match(r'\s*(?:"([^"]*)"|<([^>]*)>)', rest)
        if m is None and tokens:  # #include MACRO: the macro spells the header
            m = re.match(r'\s*(?:"([^"]*)"|<([^>]*)>)', spell(self.all_expander.expand(tokens)).replace("< ", "<"))
        if m is None:
            self.problems.append(Diagnostic("#include expects \"FILE\" or <FILE>", loc))
            return
        quoted = m.group(1) is not None
        name = (m.group(1) if quoted else m.group(2)).strip()
        at = rest_col + len(rest) - len(rest.lstrip())
        where = SourceLoc(loc.file, loc.line, at, loc.line, at + len(name) + 2)
        if name in STANDARD_HEADERS and not quoted:
            self.result.includes += [name] * (name not in self.result.includes)
            return
        searched = ([(directory, f"beside {display}")] if quoted else []) + [(d, "-I") for d in self.flags.include_dirs]
        # exists, not isfile: a header that is a device or a FIFO is found, and refused when read
        found = next((os.path.join(d, name) for d, _ in searched if os.path.exists(os.path.join(d, name))), None)
        if found is None and name in STANDARD_HEADERS:
            self.result.includes += [name] * (name not in self.result.includes)
            return
        if found is None and name in self.missing:
            return
        if found is None and name not in self.missing:
            self.missing.add(name)  # said once: each later #include of it fails the same way
            looked = ", ".join(f"{d or '.'} ({why})" for d, why in searched) or "no -I directory"
            if quoted:
                self.problems.append(Diagnostic(
                    f"cannot find \"{name}\"", where,
                    f"looked in {looked}; add -I DIR for the directory that holds it"))
            else:
                self.problems.append(Diagnostic(
                    f"unknown standard header <{name}>", where,
                    f"s2sad knows {', '.join(sorted(STANDARD_HEADERS))}; a header of your own is read "
                    f"from a -I directory (looked in {looked})"))
            return
        real = os.path.realpath(found)
        roots = [self.directory or ".", *self.flags.include_dirs]
        if not any(_below(real, root) for root in roots):
            self.problems.append(Diagnostic(
                f"\"{name}\" is outside the input file's folder and the -I folders", where,
                "s2sad reads headers only from below those folders; add -I DIR for the folder that holds it"))
            return
        if real in self.once:
            return
        if self.depth >= _MAX_DEPTH:
            self.problems.append(Diagnostic(f"#include nested too deeply at \"{name}\"", where,
                                            "a header that includes itself needs an include guard or #pragma once"))
            return
        try:
            text = c_text(read_source_bytes(found))
        except SourceFileError as e:
            self.problems.append(Diagnostic(f"cannot read \"{name}\": it {e}", where))
            return
        except OSError as e:
            self.problems.append(Diagnostic(f"cannot read \"{name}\": {e}", where))
            return
        if name not in self.result.includes:
            self.result.includes.append(name)
        self.depth += 1
        try:
            self._file(text, self._display(found), os.path.dirname(found), real)
        finally:
            self.depth -= 1

    def _display(self, found: str) -> str:
        """A header's name in diagnostics: its path from the main file's directory when it
        is below it (``local.h``, ``include/local.h``), else the path it was found at."""
        relative = os.path.relpath(os.path.abspath(found), os.path.abspath(self.directory or "."))
        return relative if not relative.startswith("..") else os.path.normpath(found)


def _below(path: str, folder: str) -> bool:
    """Whether the resolved ``path`` lies in ``folder`` or below it (links resolved on both sides)."""
    folder = os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


def _is_constant(body: tuple[Token, ...], table: dict[str, Definition]) -> bool:
    """Whether a macro's body is a constant the front end can evaluate by name: a number, a
    signed number, or a parenthesized expression of numbers, macros and casts. Any other
    body (a type, a name, an unparenthesized ``N + 1`` that C would splice into ``2 * N + 1``)
    is expanded where it is used, as C does."""
    if len(body) == 1:
        return body[0].kind == "num"
    if len(body) == 2:
        return body[0].text in ("-", "+") and body[1].kind == "num"
    if not body or body[0].text != "(":
        return False
    depth = 0
    for k, t in enumerate(body):
        depth += {"(": 1, ")": -1}.get(t.text, 0)
        if depth == 0 and k < len(body) - 1:
            return False  # (a) * (b): the parentheses do not hold the whole body
        if t.kind == "id" and t.text not in table and t.text not in BUILTIN_MACROS and t.text not in _TYPE_WORDS:
            return False  # a variable, or a function: the body means what it means where it is used
        if t.kind in ("str", "chr", "other") or t.text in ("{", "}", ";", "=", "++", "--", ","):
            return False
    return True


def _gnu(tokens: list[Token], final: bool) -> list[Token]:
    """GNU's extensions out of the way: ``__attribute__((...))`` and ``__extension__`` dropped,
    ``__restrict__`` and the like the standard keyword. NeedMore (not ``final``) when an
    attribute's parentheses close on a later line."""
    if not any(t.text in _GNU_SPELLINGS or t.text in _GNU_DROPPED or t.text in _GNU_ATTRIBUTES for t in tokens):
        return tokens
    out: list[Token] = []
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if t.text in _GNU_ATTRIBUTES and t.kind == "id":
            depth, j = 0, k + 1
            while j < len(tokens):
                depth += {"(": 1, ")": -1}.get(tokens[j].text, 0)
                j += 1
                if depth == 0:
                    break
            if depth != 0 or j == k + 1:
                if not final:
                    raise NeedMore()
                raise MacroProblem(t, f"'{t.text}' needs its ((...)) on this line",
                                   f"write {t.text}((...)) with its parentheses closed")
            k = j
        elif t.text in _GNU_DROPPED and t.kind == "id":
            k += 1
        else:
            new = _GNU_SPELLINGS.get(t.text) if t.kind == "id" else None
            out.append(t if new is None else Token(new, "id", t.line, t.col, t.ws, t.hide, t.exact, t.end_line,
                                                   t.end_col))
            k += 1
    return out


def _layout(tokens: list[Token], running: int) -> tuple[str, list[Piece]]:
    """A changed line's text for pycparser, and where each of its tokens came from.

    A token after one no macro touched (or first) stays at its own column when the text so
    far leaves room (an expansion starts at the macro's name), so everything before the first
    expansion keeps its columns; other tokens follow with one space where the source had
    white space or the two tokens would read as one."""
    text = ""
    pieces: list[Piece] = []
    prev: Optional[Token] = None
    for t in tokens:
        gap = " " if prev is not None and (t.ws or would_paste(prev.text, t.text)) else ""
        if t.line == running and (prev is None or not prev.hide) and t.col - 1 >= len(text) + len(gap):
            gap = " " * (t.col - 1 - len(text))
        text += gap
        pieces.append(Piece(len(text) + 1, len(t.text), t.line, t.col, t.exact, t.end_line, t.end_col))
        text += t.text
        prev = t
    return text, pieces
