"""Reading the files s2sad is given: regular files only, of a bounded size.

An input file or a header that is a FIFO, a device (``/dev/zero``, ``/dev/urandom``), a socket
or a directory is refused before anything is read from it: reading one may never end, or fill
memory. A regular file larger than ``MAX_SOURCE_BYTES`` is refused too (translation time and
memory grow with the input; 16 MiB is some 40 times the largest numerical source files s2sad
is measured on). The file is opened without blocking, so that opening a FIFO no program writes
to does not wait for one, and its kind is asked of the open file itself, so that a name
swapped for another file between the check and the read changes nothing.
"""

from __future__ import annotations

import io
import os
import re
import stat
import tokenize
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError
from .ssa.ir import SourceLoc

MAX_SOURCE_BYTES = 16 * 1024 * 1024


class SourceFileError(Exception):
    """A file s2sad will not read; the message says why, in words for the user."""


_LINE_END = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """The lines of a source text as the compilers count them: ended by ``\\n``, ``\\r\\n`` or a
    lone ``\\r``, and by nothing else. ``str.splitlines`` also ends a line at a form feed, ``\\v``,
    ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028`` and ``\\u2029``, which C and Python read as white
    space or as characters of the line: a file holding one showed every later error under the
    wrong line (doorfuzz seed 990123)."""
    lines = _LINE_END.split(text)
    return lines[:-1] if lines[-1] == "" else lines


def file_kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in the words ``ls -l`` users know."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "not a regular file"


def read_source_bytes(path: str, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of the regular file ``path``; SourceFileError when it is none, or is too large.
    OSError (no such file, permission denied) passes through for the caller to word."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SourceFileError(f"is {file_kind(st.st_mode)}, not a regular file")
        if st.st_size > limit:
            raise SourceFileError(f"has {st.st_size:,} bytes, more than the {limit:,} s2sad reads")
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= limit:  # the file may grow while it is read: stop one byte past the limit
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise SourceFileError(f"has more than the {limit:,} bytes s2sad reads")
        return b"".join(chunks)
    finally:
        os.close(fd)


def c_text(data: bytes) -> str:
    """A C file's text, its line ends read as a C compiler reads them (``\\r\\n`` and a lone
    ``\\r`` end a line). UTF-8, or, where it is not (a Latin-1 name in an old comment), each byte
    as the character of that number: gcc reads such bytes as they are, so s2sad must not refuse
    them; only comments and strings can hold them, and neither changes a derivative."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def python_text(data: bytes, path: str) -> str:
    """A Python file's text decoded as Python decodes it: a UTF-8 byte-order mark or a coding
    cookie (``# -*- coding: latin-1 -*-``) on one of the first two lines says how, else UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:  # an unknown encoding, or a BOM beside another cookie
        raise DiagnosticError([Diagnostic(f"cannot read {Path(path).name}: {e.msg}", None,
                                          hint="Python cannot decode this file either")]) from None
    try:
        return data.decode(encoding)  # "utf-8-sig" drops the BOM
    except UnicodeDecodeError as e:
        raise _undecodable(data, e, encoding, path) from None
    except LookupError:  # a codec that is no text encoding (``# coding: rot13``): Python refuses it too
        raw = [r.decode("utf-8", errors="replace") for r in data.split(b"\n")[:2]]
        line = next((k + 1 for k, r in enumerate(raw) if "coding" in r), 1)
        loc = SourceLoc(Path(path).name, line, 1, line, max(len(raw[line - 1]), 1) + 1 if raw else 2)
        raise DiagnosticError([Diagnostic(f"'{encoding}' is not a text encoding", loc,
                                          hint="Python cannot decode this file either: name a text encoding "
                                          "(utf-8, latin-1) in the coding comment")], raw) from None


def _undecodable(data: bytes, e: UnicodeDecodeError, encoding: str, path: str) -> DiagnosticError:
    """The located error for the first byte that is not ``encoding``: the lines are shown with
    the bad bytes replaced, the caret under the first."""
    line = data.count(b"\n", 0, e.start) + 1
    line_start = data.rfind(b"\n", 0, e.start) + 1
    shown = encoding
    lines = data.decode(encoding, errors="replace").splitlines()
    if len(lines) < line:  # an encoding whose line ends are not b"\n" (utf-16): the bytes' lines, as UTF-8
        shown = "utf-8"
        lines = [r.decode(shown, errors="replace") for r in data.split(b"\n")]
    col = len(data[line_start:e.start].decode(shown, errors="replace")) + 1
    loc = SourceLoc(Path(path).name, line, col, line, col + 1)
    return DiagnosticError([Diagnostic(f"line {line} is not valid {encoding}: {e.reason}", loc,
                                       hint="Python cannot decode this file either")], lines)
